// Preloaded (node --require) into the processes the demo launcher starts in
// their own process group. They get no terminal Ctrl-C and the launcher stops
// them in order; if the launcher itself dies without that (kill -9, a crash),
// this makes them stop too instead of holding the demo's ports forever.
"use strict"

const parent = process.ppid
const timer = setInterval(() => {
  if (process.ppid !== parent) {
    clearInterval(timer)
    process.kill(process.pid, "SIGTERM")
    // Medusa shuts down gracefully on SIGTERM; do not wait on it forever.
    setTimeout(() => process.exit(1), 10_000).unref()
  }
}, 1000)
timer.unref()
