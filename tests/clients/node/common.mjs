// What the client scripts share: their arguments, one JSON line per report on stdout, and
// leaving after the wanted number of events or at the deadline.

export function args(usage) {
  const [base, token, count = "3", timeout = "30"] = process.argv.slice(2);
  if (!base || !token) {
    process.stderr.write(`usage: node ${usage} <base-url> <access-token> [events] [timeout-s]\n`);
    process.exit(2);
  }
  return { base: base.replace(/\/+$/, ""), token, count: Number(count), timeout: Number(timeout) };
}

export function report(line) {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

// Counts the events reported through `event()`; `close` runs once, when `count` were seen
// (exit 0) or at the deadline (exit 1, with what was missing on stderr).
export function collector({ count, timeout }, close) {
  let seen = 0;
  let done = false;
  const finish = (code) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    Promise.resolve()
      .then(close)
      .catch(() => {})
      .finally(() => process.exit(code));
  };
  const timer = setTimeout(() => {
    process.stderr.write(`timeout: ${seen} of ${count} events after ${timeout} s\n`);
    finish(1);
  }, timeout * 1000);
  return {
    event(line) {
      report(line);
      seen += 1;
      if (seen >= count) finish(0);
    },
    fail(error) {
      process.stderr.write(`${error?.stack ?? error}\n`);
      finish(1);
    },
  };
}
