"""Database clients and tools: the SQL (or Mongo, or Redis) they would run, wherever it comes from."""

from __future__ import annotations

import re
import shlex

from opsassist.guard.commands.core import (
    Ctx,
    Effect,
    collect,
    handles,
    option,
    ordered_options,
    program,
    split_options,
    split_positionals,
    sql_effects,
)
from opsassist.guard.shell import DYNAMIC


@handles("psql", "pgcli")
def _psql(ctx: Ctx, argv: list[str]) -> list[Effect]:
    values = (
        "-c --command -f --file -h --host -p --port -U --username -d --dbname -v --set --variable "
        "-o --output -L --log-file -P --pset -T --table-attr -F --field-separator -R "
        "--record-separator"
    ).split()
    found, _ = ordered_options(argv[1:], values)
    names = {n for n, _ in found}
    if names & {"-l", "--list", "-V", "--version", "--help", "-?"}:
        return [ctx.effect(argv, "read", "psql --list/--version")]
    effects = sql_effects(
        ctx,
        argv,
        "psql",
        "postgres",
        collect(found, ["-c", "--command"]),
        collect(found, ["-f", "--file"]),
        reads_stdin=True,
    )
    out = collect(found, ["-o", "--output"])
    return effects + [ctx.effect(argv, "write", f"writes file {path}") for path in out if path != "/dev/null"]


@handles("mysql", "mariadb", "mycli")
def _mysql(ctx: Ctx, argv: list[str]) -> list[Effect]:
    values = (
        "-e --execute -h --host -P --port -u --user -D --database -S --socket --defaults-file "
        "--defaults-extra-file --login-path --ssl-mode --protocol --init-command"
    ).split()
    found, _ = ordered_options(argv[1:], values)
    sql = collect(found, ["-e", "--execute", "--init-command"])
    for statement in sql:
        if re.search(r"(^|;)\s*(source|\\\.)\s", statement, re.IGNORECASE):
            return ctx.unverifiable(argv, "mysql `source` runs SQL from a file that is not seen")
    return sql_effects(ctx, argv, "mysql", "mysql", sql, [], reads_stdin=True)


@handles("sqlite3", "sqlite", "duckdb")
def _sqlite(ctx: Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    values = ("-cmd -init -separator -nullvalue -newline -vfs -c -s -mmap -pagecache -lookaside -heap -maxsize").split()
    found, positional = ordered_options(argv[1:], values)
    if collect(found, ["-init"]):
        return ctx.unverifiable(argv, f"{name} -init runs a file that is not seen")
    sql = collect(found, ["-cmd", "-c", "-s"]) + positional[1:]
    return sql_effects(
        ctx, argv, name, "sqlite" if name != "duckdb" else "duckdb", sql, [], reads_stdin=not positional[1:]
    )


@handles("clickhouse-client", "clickhouse")
def _clickhouse(ctx: Ctx, argv: list[str]) -> list[Effect]:
    args = argv[1:]
    if program(argv) == "clickhouse":
        if not args or args[0] not in ("client", "local"):
            return [ctx.effect(argv, "unknown", "clickhouse")]
        args = args[1:]
    values = (
        "--query -q --host -h --port --user -u --password --database -d --format -f --queries-file --config-file -C"
    ).split()
    found, _ = ordered_options(args, values)
    return sql_effects(
        ctx,
        argv,
        "clickhouse-client",
        "clickhouse",
        collect(found, ["--query", "-q"]),
        collect(found, ["--queries-file"]),
        reads_stdin=True,
    )


@handles("cqlsh", "cockroach", "trino", "presto", "snowsql", "usql", "bq")
def _other_sql(ctx: Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    args = argv[1:]
    if name == "cockroach":
        if not args or args[0] != "sql":
            return [ctx.effect(argv, "unknown", "cockroach")]
        args = args[1:]
    if name == "bq":
        if not args or args[0] != "query":
            return [
                ctx.effect(
                    argv,
                    "unknown" if args and args[0] not in ("ls", "show", "head") else "read",
                    f"bq {args[0] if args else ''}",
                )
            ]
        found, positional = ordered_options(args[1:], ["--project_id", "--location", "--format"])
        return sql_effects(ctx, argv, "bq", "bigquery", positional, [], reads_stdin=not positional)
    found, _ = ordered_options(
        args,
        "-e --execute -f --file -q --query --url --host -u --user -c --command".split(),
    )
    return sql_effects(
        ctx,
        argv,
        name,
        "postgres",
        collect(found, ["-e", "--execute", "-q", "--query", "-c", "--command"]),
        collect(found, ["-f", "--file"]),
        reads_stdin=True,
    )


MONGO_PATTERNS = [
    (re.compile(r"\.(drop|dropDatabase|dropCollection|dropIndex(es)?)\s*\("), "DROP"),
    (re.compile(r"\.(deleteOne|deleteMany|remove|findOneAndDelete|findAndRemove)\s*\("), "DELETE"),
    (
        re.compile(
            r"\.(updateOne|updateMany|update|replaceOne|findOneAndUpdate|findOneAndReplace|findAndModify|"
            r"bulkWrite)\s*\("
        ),
        "UPDATE",
    ),
    (re.compile(r"\.(insertOne|insertMany|insert|save)\s*\(|\$out|\$merge"), "INSERT"),
    (re.compile(r"\.(createCollection|createIndex|createIndexes|createUser|createRole)\s*\("), "CREATE"),
    (re.compile(r"\.(renameCollection)\s*\(|collMod"), "ALTER"),
    (re.compile(r"shutdownServer|fsyncLock|killOp|adminCommand|runCommand|eval\s*\("), "COMMAND"),
]


@handles("mongosh", "mongo")
def _mongo(ctx: Ctx, argv: list[str]) -> list[Effect]:
    found, positional = ordered_options(
        argv[1:],
        "--eval --host --port -u --username -p --password --authenticationDatabase -f --file".split(),
    )
    scripts = [p for p in positional if p.endswith(".js")] + collect(found, ["-f", "--file"])
    if scripts:
        return ctx.unverifiable(argv, f"mongosh runs {scripts[0]}, whose content is not seen")
    code = " ".join(collect(found, ["--eval"]))
    if not code:
        piped = ctx.piped_input(argv, "mongosh session", "code")
        if isinstance(piped, list):
            return piped
        code = piped
    if DYNAMIC in code:
        return ctx.unverifiable(argv, "the mongosh code is only known at run time")
    verbs = [verb for pattern, verb in MONGO_PATTERNS if pattern.search(code)]
    if "COMMAND" in verbs:
        return ctx.unverifiable(argv, "mongosh runs an admin command that is not analysed")
    if verbs:
        return [
            ctx.effect(
                argv,
                "write",
                f"mongosh: {', '.join(verbs)}",
                sql_verbs=tuple(verbs),
                deletes="DELETE" in verbs,
            )
        ]
    return [ctx.effect(argv, "read", "mongosh: read-only")]


REDIS_READ = frozenset(
    (
        "GET MGET STRLEN GETRANGE EXISTS TYPE TTL PTTL KEYS SCAN SSCAN HSCAN ZSCAN HGET HMGET "
        "HGETALL HKEYS HVALS HLEN HEXISTS LRANGE LLEN LINDEX SMEMBERS SISMEMBER SCARD SRANDMEMBER "
        "ZRANGE ZREVRANGE ZRANGEBYSCORE ZSCORE ZCARD ZCOUNT ZRANK XRANGE XREVRANGE XLEN XINFO "
        "XPENDING INFO PING ECHO DBSIZE TIME LASTSAVE ROLE MONITOR SLOWLOG LATENCY MEMORY OBJECT "
        "DUMP CLIENT CONFIG CLUSTER COMMAND PUBSUB BITCOUNT GETBIT PFCOUNT GEOPOS GEODIST "
        "GEORADIUS_RO GEOSEARCH RANDOMKEY AUTH SELECT HELLO"
    ).split()
)


REDIS_WRITE_SUBCOMMANDS = {
    "CLIENT": ("KILL", "PAUSE", "SETNAME"),
    "CONFIG": ("SET", "REWRITE", "RESETSTAT"),
    "SLOWLOG": ("RESET",),
    "CLUSTER": ("FAILOVER", "RESET", "FORGET", "MEET", "ADDSLOTS", "DELSLOTS", "SETSLOT", "REPLICATE"),
    "MEMORY": ("PURGE",),
    "LATENCY": ("RESET",),
}


@handles("redis-cli", "valkey-cli", "keydb-cli")
def _redis(ctx: Ctx, argv: list[str]) -> list[Effect]:
    values = "-h -p -a -n -u -s -r -i --user --pass --tls --cacert --cert --key -d --eval".split()
    opts, rest = split_options(argv[1:], values)
    if option(opts, "--eval"):
        return ctx.unverifiable(argv, "a redis Lua script is not analysed")
    commands = [rest] if rest else []
    if not rest:
        piped = ctx.piped_input(argv, "redis-cli session", "commands")
        if isinstance(piped, list):
            return piped
        commands = [shlex.split(line, posix=True) for line in piped.splitlines() if line.strip()]
    effects = []
    for command in commands:
        name = command[0].upper()
        sub = command[1].upper() if len(command) > 1 else ""
        if DYNAMIC in name:
            return ctx.unverifiable(argv, "the redis command is only known at run time")
        if name in REDIS_READ and sub not in REDIS_WRITE_SUBCOMMANDS.get(name, ()):
            effects.append(ctx.effect(argv, "read", f"redis {name}"))
        else:
            deletes = name in ("DEL", "UNLINK", "FLUSHALL", "FLUSHDB", "HDEL", "SREM", "ZREM", "LREM", "XDEL")
            effects.append(ctx.effect(argv, "write", f"redis {name} (cache write)", deletes=deletes))
    return effects


@handles("pg_dump pg_dumpall mysqldump mariadb-dump pg_isready pg_controldata pg_config mongodump pg_basebackup")
def _db_read_tools(ctx: Ctx, argv: list[str]) -> list[Effect]:
    found, _ = ordered_options(argv[1:], ["-f", "--file", "-D", "--pgdata", "-o", "--out", "-r", "--result-file"])
    outputs = collect(found, ["-f", "--file", "-o", "--out", "-r", "--result-file", "-D", "--pgdata"])
    name = program(argv)
    return [ctx.effect(argv, "read", name)] + [ctx.effect(argv, "write", f"writes file {p}") for p in outputs]


@handles(
    "dropdb dropuser createdb createuser vacuumdb reindexdb clusterdb pg_restore mysqladmin mongorestore "
    "pg_ctl pg_ctlcluster"
)
def _db_admin_tools(ctx: Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    verbs = {
        "dropdb": ("DROP",),
        "dropuser": ("DROP",),
        "createdb": ("CREATE",),
        "createuser": ("CREATE",),
        "vacuumdb": ("VACUUM",),
        "reindexdb": ("REINDEX",),
        "clusterdb": ("CLUSTER",),
    }.get(name, ())
    if name == "mysqladmin":
        positional = split_positionals(argv[1:], ["-h", "-P", "-u", "-S", "--host", "--port", "--user"])
        sub = positional[0].lower() if positional else ""
        if sub in ("status", "extended-status", "processlist", "variables", "ping", "version", ""):
            return [ctx.effect(argv, "read", f"mysqladmin {sub}")]
        verbs = {"drop": ("DROP",), "create": ("CREATE",), "kill": ("KILL",)}.get(sub, ())
        if sub == "shutdown":
            return [ctx.effect(argv, "write", "mysqladmin shutdown", service_action="stop", targets=("mysql",))]
    if name in ("pg_ctl", "pg_ctlcluster"):
        positional = split_positionals(argv[1:], ["-D", "-m", "-o", "-l", "-t", "-w"])
        sub = next(
            (p for p in positional if p in ("start", "stop", "restart", "reload", "status", "promote", "kill")),
            "",
        )
        if sub == "status":
            return [ctx.effect(argv, "read", f"{name} status")]
        action = {"stop": "stop", "restart": "restart", "kill": "kill"}.get(sub)
        return [ctx.effect(argv, "write", f"{name} {sub}", service_action=action, targets=("postgres",))]
    return [
        ctx.effect(
            argv,
            "write",
            f"{name}" + (f": SQL {', '.join(verbs)}" if verbs else ""),
            sql_verbs=verbs,
            deletes=name in ("dropdb", "dropuser"),
        )
    ]
