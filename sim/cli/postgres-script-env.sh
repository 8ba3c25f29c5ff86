# Sourced by the check-postgres*.sh scripts: qdt and the source folder from
# the arguments, a scratch folder removed at exit, and fail().
# The server runs as the unprivileged postgres user when we are root: it
# must reach its cluster folder below the scratch folder, hence mode 755.
qdt=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d)
chmod 755 "$tmp"
export TMPDIR=$tmp
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/err" >&2 2>/dev/null; exit 1; }
