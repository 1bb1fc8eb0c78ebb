/**
 * One autocannon run in a process of its own, so that parsing the answers does not share the api's event
 * loop (the client's cost grows with the answer's size and would count as the server's latency). Reads its
 * options as JSON from argv[2]; prints each response's exact time (ms, sorted) and autocannon's figures as
 * JSON on stdout.
 */
import autocannon from "autocannon";

const opts = JSON.parse(process.argv[2] ?? "{}") as autocannon.Options;
const times: number[] = [];
const tracker = autocannon(opts, (err, result) => {
  if (err) throw err;
  times.sort((a, b) => a - b);
  process.stdout.write(
    JSON.stringify({
      times,
      mean: result.latency.average,
      rps: result.requests.average,
      non2xx: result.non2xx,
      errors: result.errors,
    }),
  );
});
tracker.on("response", (_client: unknown, _status: number, _bytes: number, ms: number) => times.push(ms));
