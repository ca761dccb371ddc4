# Sourced by .ci/run: start a throwaway PostgreSQL for the store's tests and stop it at exit.
#
# Installs Debian's postgresql when no initdb is found. initdb refuses to run as root, so as root
# the server is initialised and run by the `postgres` user, in a temporary directory that user
# owns; otherwise by the current user. It listens on 127.0.0.1 on a free port (and a unix socket in
# that directory), holds one database, and is stopped, its directory removed, when the sourcing
# shell exits. Exports TRAILCHECK_TEST_POSTGRES_URL and TRAILCHECK_REQUIRE_POSTGRES=1, so the
# store's tests run on PostgreSQL and fail, rather than skip, when it is unreachable.

_pg_bin_dir() {
    local found
    if found="$(command -v initdb 2>/dev/null)"; then
        dirname "$(readlink -f "$found")"
        return
    fi
    # Debian keeps the binaries off PATH, one directory per major version: take the newest.
    found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    if [ -n "$found" ] && [ -x "$found/initdb" ]; then
        echo "$found"
    fi
}

_pg_install() {
    local apt_get
    if [ "$(id -u)" = 0 ]; then apt_get=(apt-get); else apt_get=(sudo apt-get); fi
    "${apt_get[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq postgresql >/dev/null
}

_pg_as_owner() {
    # Run a command as the server's owner: `postgres` when we are root, else ourselves.
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

_pg_stop() {
    if [ -n "${_PG_DIR:-}" ] && [ -d "$_PG_DIR" ]; then
        _pg_as_owner "$_PG_BIN/pg_ctl" -D "$_PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
        rm -rf "$_PG_DIR"
    fi
}

_PG_BIN="$(_pg_bin_dir)"
if [ -z "$_PG_BIN" ]; then
    _pg_install
    _PG_BIN="$(_pg_bin_dir)"
fi
if [ -z "$_PG_BIN" ]; then
    echo "postgres-start: no initdb after installing postgresql" >&2
    exit 1
fi

_PG_DIR="$(mktemp -d -t trailcheck-pg.XXXXXX)"
trap _pg_stop EXIT
# A signal ends the shell through its EXIT trap, so an interrupted run stops the server too.
trap "exit 130" INT
trap "exit 143" TERM
if [ "$(id -u)" = 0 ]; then
    chown postgres: "$_PG_DIR"
fi
_PG_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

_pg_as_owner "$_PG_BIN/initdb" -D "$_PG_DIR/data" -U postgres -A trust --no-sync -E UTF8 \
    >"$_PG_DIR/initdb.log" 2>&1 || { cat "$_PG_DIR/initdb.log" >&2; exit 1; }
_pg_as_owner "$_PG_BIN/pg_ctl" -D "$_PG_DIR/data" -l "$_PG_DIR/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $_PG_PORT -k $_PG_DIR -c fsync=off" start >/dev/null \
    || { cat "$_PG_DIR/server.log" >&2; exit 1; }
_pg_as_owner "$_PG_BIN/createdb" -h 127.0.0.1 -p "$_PG_PORT" -U postgres trailcheck_test

export TRAILCHECK_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$_PG_PORT/trailcheck_test"
export TRAILCHECK_REQUIRE_POSTGRES=1
echo "postgres-start: PostgreSQL $("$_PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$_PG_PORT" >&2
