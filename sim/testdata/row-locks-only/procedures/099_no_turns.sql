-- qdt's own SQL with its turns and its line taken out: pushes, bundles and
-- maintenance serialize on the partition rows' locks alone, as Queen's SQL
-- does. Loaded after qdt's procedures, in a copy of its folder.
CREATE OR REPLACE FUNCTION queen.qdt_partition_turn(p_pid uuid, p_shared boolean DEFAULT false) RETURNS void
LANGUAGE sql
AS $$ SELECT $$;

CREATE OR REPLACE FUNCTION queen.qdt_line_enter() RETURNS void
LANGUAGE sql
AS $$ SELECT $$;

CREATE OR REPLACE FUNCTION queen.qdt_line_leave() RETURNS void
LANGUAGE sql
AS $$ SELECT $$;
