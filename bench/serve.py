"""The serving benchmark of issue 42 item 9: `hhlo serve` against in-process `hhlo bench` and
against Seldon MLServer (a JAX runtime of ours, bench/serve_peer_runtime.py) on the MLP and the CNN
of bench/peers.py, exported with a symbolic batch dimension. bench/serve.sh makes the venvs and
builds `hhlo`; this file exports the models, starts and stops the servers and measures.

Parts, in one run (`serve.py run`):
  (a) what the server adds: batch-1 requests one at a time (concurrency 1) over HTTP with binary
      tensors (wrk, a C client on one keep-alive connection: the least a client costs; a lean raw
      Python client: the request's bytes made once, one keep-alive socket; and tritonclient.http
      as users call it) and over gRPC (tritonclient.grpc), p50/p99 against `hhlo bench` of the
      same artifact in process. Goal: the server adds <= 50 us p50 (judged on wrk, the lean
      Python client and gRPC; tritonclient.http's own Python cost is shown beside).
  (b) throughput and p99 of batch-1 JSON requests at concurrency 1, 8, 32, 128, ours with dynamic
      batching on (--max-batch-size 16) and off (0). Goal: at concurrency 32, batching on gives
      >= 4x the throughput of batching off.
  (c) the peer: MLServer with adaptive batching (max_batch_size 16) on the same model (the same
      artifact, jax.jit of its call), the same JSON body and the same load generator. Goal: at
      each concurrency >= 5x the peer's throughput at an equal or better p99.

Load generator of (b) and (c): wrk (C, epoll, one thread by default), a Lua script POSTing one
fixed JSON body (KServe v2 JSON, which both servers take; MLServer has no binary tensor
extension) on keep-alive connections, one per unit of concurrency, closed loop. wrk rather than a
Python generator: a Python client on these 2 cores would be the bottleneck (tens of thousands of
requests/s are asked of it), so it would measure itself. Its latencies are per request from send to
response (closed loop: not corrected for coordinated omission, the same for both servers). A
non-2xx answer counts as an error and the point is marked.

Usage (the venv of bench/serve.sh, .venv-serve):
  serve.py prepare DIR              export the models: DIR/repo/M/1/model.jax, DIR/M_x.npy (batch
                                    1), DIR/M_y.npy (JAX's output), DIR/M_b1.json (the body),
                                    DIR/peer/... (MLServer's settings)
  serve.py run DIR --hhlo PATH --peer-python PATH --results FILE
                                    (a), (b), (c); one JSON line per point, appended to FILE
  serve.py table RESULTS.jsonl      the tables and the goals
  serve.py versions                 the versions of the clients and the peer, one JSON line
Env: HHLO_SERVE_SCALE (seconds per point = 10 x scale; calls of (a) likewise), HHLO_SERVE_CONFIGS
     (comma-separated subset of mlp,cnn), HHLO_SERVE_CONCURRENCY (default 1,8,32,128),
     HHLO_SERVE_PARTS (default a,b,c), HHLO_SERVE_WRK_THREADS (default 1), HHLO_SERVE_ARGS
     (more flags for `hhlo serve`, e.g. "--execution sync"),
     HHLO_SERVE_PEER_BATCH_TIME (MLServer's max_batch_time in s, default 0.0001: it must be > 0
     for MLServer to batch; about ours' 0, a batch is what is queued), HHLO_SERVE_PEER_WORKERS
     (MLServer's parallel_workers, default 1 as MLServer's: inference in one worker process while
     the main process parses HTTP and batches).
"""
import argparse
import contextlib
import json
import os
import re
import pathlib
import signal
import socket
import subprocess
import sys
import time
import types
import urllib.request

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import peers  # noqa: E402  (the models, the same weights)

MODELS = ("mlp", "cnn")
CONCURRENCY = (1, 8, 32, 128)
MAX_BATCH = 16
QUEUE = 1024  # our --max-queue-size: above the largest concurrency, so no point is refused 503
SECONDS = 10.0  # per load point at scale 1
LATENCY_CALLS = 4000  # per client in (a) at scale 1 (capped to SECONDS of work)
INPUT = "args[0]"  # the input's name in a jax.export artifact (its pytree path)
TOL = 1e-3
GOAL_ADDS_US, GOAL_BATCHING, GOAL_PEER = 50.0, 4.0, 5.0


def env_list(name, default):
    v = os.environ.get(name, "")
    return [s.strip() for s in v.split(",") if s.strip()] if v else list(default)


def scale():
    return float(os.environ.get("HHLO_SERVE_SCALE", "1"))


def emit(results, rec):
    line = json.dumps(rec)
    print(line, file=sys.stderr)
    with open(results, "a") as f:
        f.write(line + "\n")


# ---------------------------------------------------------------- prepare


def ensure_pooling():
    """peers.py's CNN pools with flax.linen.max_pool, which is lax.reduce_window of max (the same
    StableHLO); where flax is not installed that reduce_window stands in, so this venv needs no
    flax (and its dependencies) for one function."""
    try:
        import flax.linen  # noqa: F401
        return
    except ImportError:
        pass
    import jax.numpy as jnp
    from jax import lax

    def max_pool(x, window, strides, padding):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, *window, 1), (1, *strides, 1), padding)
    linen = types.ModuleType("flax.linen")
    linen.max_pool = max_pool
    sys.modules.setdefault("flax", types.ModuleType("flax")).linen = linen
    sys.modules["flax.linen"] = linen


def request_json(x):
    """KServe v2 JSON body of one FP32 input (flat data, shortest round-trip digits)."""
    return json.dumps({"inputs": [{"name": INPUT, "shape": list(x.shape), "datatype": "FP32",
                                   "data": [float(v) for v in x.ravel()]}]})


def peer_settings(d, name, batch_time):
    folder = d / "peer" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model-settings.json").write_text(json.dumps({
        "name": name, "implementation": "serve_peer_runtime.JaxExportRuntime",
        "max_batch_size": MAX_BATCH, "max_batch_time": batch_time,
        "parameters": {"uri": str(d / "repo" / name / "1" / "model.jax")}}, indent=1))


def prepare(args):
    import jax
    import jax.numpy as jnp
    from jax import export
    ensure_pooling()
    d = pathlib.Path(args.dir)
    for name in env_list("HHLO_SERVE_CONFIGS", MODELS):
        fn, shape_of = peers.model(name)
        (b,) = export.symbolic_shape("b")
        exp = export.export(jax.jit(fn))(jax.ShapeDtypeStruct(shape_of(b), jnp.float32))
        folder = d / "repo" / name / "1"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "model.jax").write_bytes(exp.serialize())
        x = np.random.default_rng(7).standard_normal(shape_of(1)).astype(np.float32)
        np.save(d / f"{name}_x.npy", x)
        np.save(d / f"{name}_y.npy", np.asarray(jax.jit(fn)(x)))
        (d / f"{name}_b1.json").write_text(request_json(x))
        peer_settings(d, name, float(os.environ.get("HHLO_SERVE_PEER_BATCH_TIME", "0.0001")))
        print(f"== prepared {name}: {exp.in_avals} -> {exp.out_avals}", file=sys.stderr)


# ---------------------------------------------------------------- servers


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url, proc, timeout=300):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode} before it was ready")
        try:
            with urllib.request.urlopen(url + "/v2/health/ready", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server not ready after {timeout} s")


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def ours(d, hhlo, max_batch):
    """`hhlo serve` on the repository on free ports: yields (http url, grpc host:port)."""
    cmd = [hhlo, "serve", str(d / "repo"), "--http-port", "0", "--grpc-port", "0",
           "--metrics-port", "0", "--max-batch-size", str(max_batch),
           "--max-queue-size", str(QUEUE), *os.environ.get("HHLO_SERVE_ARGS", "").split()]
    log = open(d / f"ours-b{max_batch}.log", "w")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        ports = {}
        for line in proc.stdout:
            log.write(line)
            for kind in ("HTTP", "gRPC"):
                if line.startswith(f"hhlo serve: {kind} on "):
                    ports[kind] = line.split(" on ", 1)[1].strip()
            if "HTTP" in ports:
                break
        if "HTTP" not in ports:
            raise RuntimeError(f"hhlo serve exited {proc.wait()}: see {log.name}")
        http = "http://" + ports["HTTP"]
        wait_ready(http, proc)
        yield http, ports["gRPC"]
    finally:
        stop(proc)
        log.close()


@contextlib.contextmanager
def peer(d, python, workers):
    """MLServer on the peer folder: yields its http url."""
    http, grpc, metrics = free_port(), free_port(), free_port()
    (d / "peer" / "settings.json").write_text(json.dumps({
        "http_port": http, "grpc_port": grpc, "metrics_port": metrics,
        "parallel_workers": workers, "debug": False}))
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).resolve().parent))
    mlserver = pathlib.Path(python).parent / "mlserver"
    log = open(d / "peer.log", "w")
    proc = subprocess.Popen([str(mlserver), "start", str(d / "peer")], stdout=log,
                            stderr=subprocess.STDOUT, env=env, cwd=d / "peer")
    try:
        url = f"http://127.0.0.1:{http}"
        wait_ready(url, proc)
        yield url
    finally:
        stop(proc)
        log.close()


# ---------------------------------------------------------------- (a) latency


def rel_err(y, ref):
    return peers.rel_err(y, ref)


def percentiles(us):
    us = sorted(us)
    pick = lambda q: us[min(len(us) - 1, int(round(q / 100 * (len(us) - 1))))]  # noqa: E731
    return {"p50_us": pick(50), "p99_us": pick(99), "min_us": us[0], "calls": len(us)}


def timed(call, calls, budget_s, after_warmup=lambda: None):
    """Latencies (us) of up to `calls` calls after a tenth as many untimed, within budget_s;
    after_warmup() is called between the two."""
    for _ in range(max(10, calls // 10)):
        call()
    after_warmup()
    us, t_end = [], time.perf_counter() + budget_s
    for _ in range(calls):
        t0 = time.perf_counter()
        call()
        us.append((time.perf_counter() - t0) * 1e6)
        if t0 > t_end:
            break
    return us


class RawHttp:
    """A lean HTTP/1.1 client: one keep-alive socket, the request's bytes made once (binary tensor
    extension, output asked binary), the response read up to its Content-Length."""

    def __init__(self, url, model, x):
        host, port = url.removeprefix("http://").split(":")
        header = json.dumps({"inputs": [{"name": INPUT, "shape": list(x.shape),
                                         "datatype": "FP32",
                                         "parameters": {"binary_data_size": x.nbytes}}],
                             "outputs": [{"name": "result",
                                          "parameters": {"binary_data": True}}]}).encode()
        body = header + x.tobytes()
        self.req = (f"POST /v2/models/{model}/infer HTTP/1.1\r\nHost: {host}\r\n"
                    f"Content-Type: application/octet-stream\r\n"
                    f"Inference-Header-Content-Length: {len(header)}\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        self.sock = socket.create_connection((host, int(port)))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def __call__(self):
        self.sock.sendall(self.req)
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.sock.recv(65536)
        head, rest = self.buf.split(b"\r\n\r\n", 1)
        fields = dict(l.split(b":", 1) for l in head.split(b"\r\n")[1:])
        lower = {k.strip().lower(): v.strip() for k, v in fields.items()}
        n = int(lower[b"content-length"])
        while len(rest) < n:
            rest += self.sock.recv(65536)
        self.buf = rest[n:]
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"raw http: {head.splitlines()[0]!r}: {rest[:n][:200]!r}")
        hlen = int(lower.get(b"inference-header-content-length", n))
        return np.frombuffer(rest[hlen:n], np.float32)


def latency_clients(http, grpc, model, x):
    """name -> a function doing one request and returning its output as an array."""
    import tritonclient.grpc as tg
    import tritonclient.http as th
    hc = th.InferenceServerClient(http.removeprefix("http://"))
    hi = th.InferInput(INPUT, list(x.shape), "FP32")
    hi.set_data_from_numpy(x, binary_data=True)
    ho = [th.InferRequestedOutput("result", binary_data=True)]
    gc = tg.InferenceServerClient(grpc)
    gi = tg.InferInput(INPUT, list(x.shape), "FP32")
    gi.set_data_from_numpy(x)
    return {"http_raw": RawHttp(http, model, x),
            "http_tritonclient": lambda: hc.infer(model, [hi], outputs=ho).as_numpy("result"),
            "grpc_tritonclient": lambda: gc.infer(model, [gi]).as_numpy("result")}


def server_stats(http, model):
    """The model's inference_stats (Triton's statistics extension: nanoseconds, counts)."""
    with urllib.request.urlopen(f"{http}/v2/models/{model}/stats", timeout=10) as r:
        return json.loads(r.read())["model_stats"][0]["inference_stats"]


def server_means(before, after):
    """Mean microseconds per request, from the server's own statistics, between two snapshots:
    request (received to answered, as the statistics count it), queue, compute."""
    out = {}
    for key, name in (("success", "server_request_us"), ("queue", "server_queue_us"),
                      ("compute_infer", "server_compute_us")):
        n = after[key]["count"] - before[key]["count"]
        out[name] = (after[key]["ns"] - before[key]["ns"]) / n / 1e3 if n else None
    return out


def inprocess(d, hhlo, name, calls):
    r = subprocess.run([hhlo, "bench", str(d / "repo" / name / "1" / "model.jax"), "-i",
                        str(d / f"{name}_x.npy"), "-n", str(calls), "--warmup",
                        str(max(10, calls // 10)), "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"hhlo bench exited {r.returncode}: {r.stderr.strip()[-300:]}")
    lat = json.loads(r.stdout)["latency_us"]
    return {"p50_us": lat["p50"], "p99_us": lat["p99"], "min_us": lat["min"], "calls": calls}


def part_a(d, hhlo, results, models):
    calls = max(50, round(LATENCY_CALLS * scale()))
    budget = SECONDS * scale()
    for name in models:
        emit(results, dict(part="a", model=name, client="inprocess",
                           **inprocess(d, hhlo, name, calls)))
    with ours(d, hhlo, MAX_BATCH) as (http, grpc):
        for name in models:
            x, y = np.load(d / f"{name}_x.npy"), np.load(d / f"{name}_y.npy")
            for client, call in latency_clients(http, grpc, name, x).items():
                err = rel_err(call(), y)
                rec = dict(part="a", model=name, client=client, err=err)
                if err > TOL:
                    rec["error"] = f"output differs from JAX's: {err:.2e}"
                else:
                    snap = {}
                    mark = lambda: snap.setdefault("before", server_stats(http, name))  # noqa
                    rec.update(percentiles(timed(call, calls, budget, mark)))
                    rec.update(server_means(snap["before"], server_stats(http, name)))
                emit(results, rec)
            # wrk (C, one keep-alive connection, binary tensors): a client that costs little.
            raw = RawHttp(http, name, x)
            body = raw.req.split(b"\r\n\r\n", 1)[1]
            json_size = int(re.search(rb"Inference-Header-Content-Length: (\d+)", raw.req).group(1))
            raw.sock.close()
            before = server_stats(http, name)
            w = wrk_point(d, http, name, 1, max(2, 5 * scale()), binary=(body, json_size))
            rec = dict(part="a", model=name, client="http_wrk", p50_us=w["p50_us"],
                       p99_us=w["p99_us"], calls=w["requests"])
            if sum(w["errors"].values()):
                rec["error"] = f"wrk errors: {w['errors']}"
            rec.update(server_means(before, server_stats(http, name)))
            emit(results, rec)


# ---------------------------------------------------------------- (b), (c) load


WRK_LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local json_size = os.getenv("HHLO_SERVE_JSON_SIZE")
if json_size then  -- the binary tensor extension: JSON header, then the tensor's bytes
  wrk.headers["Content-Type"] = "application/octet-stream"
  wrk.headers["Inference-Header-Content-Length"] = json_size
end
local f = assert(io.open(os.getenv("HHLO_SERVE_BODY"), "rb"))
wrk.body = f:read("*a")
f:close()
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "mean_us": %.1f, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency.mean, e.connect, e.read, e.write, e.status, e.timeout))
end
"""


def wrk_point(d, url, name, conc, seconds, binary=None):
    """wrk's figures for `conc` connections posting the model's batch-1 JSON body, or, with
    `binary` (the body's bytes, the JSON's length), a binary-tensor body."""
    lua = d / "post.lua"
    lua.write_text(WRK_LUA)
    threads = min(conc, int(os.environ.get("HHLO_SERVE_WRK_THREADS", "1")))
    env = dict(os.environ, HHLO_SERVE_BODY=str(d / f"{name}_b1.json"))
    if binary is not None:
        (d / f"{name}_b1.bin").write_bytes(binary[0])
        env.update(HHLO_SERVE_BODY=str(d / f"{name}_b1.bin"), HHLO_SERVE_JSON_SIZE=str(binary[1]))
    cmd = ["wrk", "-t", str(threads), "-c", str(conc), "-d", f"{max(1, round(seconds))}s",
           "--timeout", "10s", "-s", str(lua), f"{url}/v2/models/{name}/infer"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    line = [l for l in r.stdout.splitlines() if l.startswith("WRKJSON ")]
    if r.returncode != 0 or not line:
        raise RuntimeError(f"wrk exited {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
    w = json.loads(line[0][len("WRKJSON "):])
    w["throughput_per_s"] = w["requests"] / (w["duration_us"] / 1e6)
    return w


def check_json(url, name, d):
    """One request of the benchmark's body, its output against JAX's."""
    req = urllib.request.Request(f"{url}/v2/models/{name}/infer",
                                 data=(d / f"{name}_b1.json").read_bytes(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        out = json.loads(r.read())["outputs"][0]
    return rel_err(np.asarray(out["data"], np.float32), np.load(d / f"{name}_y.npy"))


def load_points(d, url, results, server, batching, models, concs):
    seconds = max(1.0, SECONDS * scale())
    for name in models:
        err = check_json(url, name, d)
        base = dict(part="c" if server == "peer" else "b", server=server, batching=batching,
                    model=name, err=err)
        if err > TOL:
            emit(results, dict(base, error=f"output differs from JAX's: {err:.2e}"))
            continue
        wrk_point(d, url, name, max(concs), max(1.0, seconds / 5))  # warm-up, untimed
        for c in concs:
            try:
                w = wrk_point(d, url, name, c, seconds)
            except RuntimeError as e:  # the point's reason is its result; the run goes on
                emit(results, dict(base, concurrency=c, error=str(e)))
                continue
            emit(results, dict(base, concurrency=c, seconds=seconds, **w))


def run(args):
    d = pathlib.Path(args.dir)
    models = env_list("HHLO_SERVE_CONFIGS", MODELS)
    concs = [int(c) for c in env_list("HHLO_SERVE_CONCURRENCY", CONCURRENCY)]
    parts = env_list("HHLO_SERVE_PARTS", "abc")
    load = lambda: os.getloadavg()[0]  # noqa: E731
    emit(args.results, dict(part="env", load_before=load(), cores=os.cpu_count(),
                            scale=scale(), models=models, concurrency=concs))
    if "a" in parts:
        print(f"== (a) latency at concurrency 1 (load {load():.2f})", file=sys.stderr)
        guarded(args.results, "a", lambda: part_a(d, args.hhlo, args.results, models))
    if "b" in parts:
        for mb, batching in ((MAX_BATCH, "on"), (0, "off")):
            print(f"== (b) ours, batching {batching} (load {load():.2f})", file=sys.stderr)

            def part_b():
                with ours(d, args.hhlo, mb) as (http, _):
                    load_points(d, http, args.results, "ours", batching, models, concs)
            guarded(args.results, "b", part_b)
    if "c" in parts:
        workers = int(os.environ.get("HHLO_SERVE_PEER_WORKERS", "1"))
        print(f"== (c) MLServer, adaptive batching (load {load():.2f})", file=sys.stderr)

        def part_c():
            with peer(d, args.peer_python, workers) as url:
                load_points(d, url, args.results, "peer", "on", models, concs)
        guarded(args.results, "c", part_c)
    emit(args.results, dict(part="env", load_after=load()))


def guarded(results, part, fn):
    """Runs one part; a failure (a server that does not start, a client error) is recorded as the
    part's result and the run goes on to the next part."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (its reason is the result)
        emit(results, dict(part=part, model="*", error=f"{type(e).__name__}: {e}"[:300]))


# ---------------------------------------------------------------- table


def fmt(v, spec=".0f"):
    return "-" if v is None else format(v, spec)


def goal(ok):
    return "met" if ok else "NOT met"


def table(args):
    recs = [json.loads(l) for l in open(args.results) if l.strip()]
    a = {(r["model"], r["client"]): r for r in recs if r["part"] == "a" and "client" in r}
    load = {(r["server"], r["batching"], r["model"], r["concurrency"]): r
            for r in recs if r["part"] in "bc" and "throughput_per_s" in r}
    for r in recs:
        if r.get("error"):
            print(f"!! {r['part']} {r.get('server', '')} {r['model']} "
                  f"{r.get('client', '')}: {r['error']}")
    models = [m for m in MODELS if any(k[0] == m for k in a) or any(k[2] == m for k in load)]
    if a:
        print("\n(a) batch 1, concurrency 1: latency (us) and what the server adds to in-process "
              "hhlo bench (p50)")
        print(f"{'model':6} {'client':18} {'p50':>8} {'p99':>8} {'adds p50':>9} "
              f"{'server: request':>16} {'queue':>6} {'compute':>8}  (server's statistics, mean)")
        for m in models:
            base = a.get((m, "inprocess"), {}).get("p50_us")
            for c in ("inprocess", "http_wrk", "http_raw", "http_tritonclient",
                      "grpc_tritonclient"):
                r = a.get((m, c))
                if not r or "p50_us" not in r:
                    continue
                adds = None if c == "inprocess" or base is None else r["p50_us"] - base
                print(f"{m:6} {c:18} {r['p50_us']:8.0f} {r['p99_us']:8.0f} {fmt(adds):>9} "
                      f"{fmt(r.get('server_request_us')):>16} {fmt(r.get('server_queue_us')):>6} "
                      f"{fmt(r.get('server_compute_us')):>8}")
    if load:
        print("\n(b, c) batch-1 JSON requests by wrk: throughput (req/s) and p99 (us); "
              "on/off = dynamic batching")
        print(f"{'model':6} {'conc':>5} {'ours on':>9} {'p99':>7} {'ours off':>9} {'p99':>7} "
              f"{'on/off':>7} {'MLServer':>9} {'p99':>7} {'ours/peer':>9}")
        concs, flagged = sorted({k[3] for k in load}), False
        for m in models:
            for c in concs:
                on, off, pr = (load.get((s, b, m, c)) for s, b in
                               (("ours", "on"), ("ours", "off"), ("peer", "on")))
                tp = lambda r: r["throughput_per_s"] if r else None  # noqa: E731
                p99 = lambda r: r["p99_us"] if r else None  # noqa: E731
                ratio = lambda x, y: x / y if x and y else None  # noqa: E731
                flag = "!" if any(r and sum(r["errors"].values()) for r in (on, off, pr)) else ""
                flagged = flagged or bool(flag)
                print(f"{m:6} {c:5d} {fmt(tp(on)):>9} {fmt(p99(on)):>7} {fmt(tp(off)):>9} "
                      f"{fmt(p99(off)):>7} {fmt(ratio(tp(on), tp(off)), '.2f'):>7} "
                      f"{fmt(tp(pr)):>9} {fmt(p99(pr)):>7} "
                      f"{fmt(ratio(tp(on), tp(pr)), '.2f'):>9}{flag}")
        if flagged:
            print("(!: some requests of the point failed: see the JSON lines' errors)")
    print("\nGoals:")
    for m in models:
        base = a.get((m, "inprocess"), {}).get("p50_us")
        for c in ("http_wrk", "http_raw", "grpc_tritonclient"):
            r = a.get((m, c))
            if base is not None and r and "p50_us" in r:
                adds = r["p50_us"] - base
                print(f"  {m} {c}: the server adds {adds:.0f} us p50 (goal <= {GOAL_ADDS_US:.0f}):"
                      f" {goal(adds <= GOAL_ADDS_US)}")
        on, off = load.get(("ours", "on", m, 32)), load.get(("ours", "off", m, 32))
        if on and off:
            q = on["throughput_per_s"] / off["throughput_per_s"]
            print(f"  {m} concurrency 32: batching on / off = {q:.2f}x "
                  f"(goal >= {GOAL_BATCHING:.0f}x): {goal(q >= GOAL_BATCHING)}")
        for c in sorted({k[3] for k in load}):
            us, pr = load.get(("ours", "on", m, c)), load.get(("peer", "on", m, c))
            if us and pr:
                q = us["throughput_per_s"] / pr["throughput_per_s"]
                ok = q >= GOAL_PEER and us["p99_us"] <= pr["p99_us"]
                print(f"  {m} concurrency {c}: {q:.2f}x MLServer's throughput, p99 {us['p99_us']}"
                      f" vs {pr['p99_us']} us (goal >= {GOAL_PEER:.0f}x at <= p99): {goal(ok)}")


def versions(_args):
    import importlib.metadata as md
    out = {}
    for p in ("tritonclient", "jax", "numpy"):
        out[p] = md.version(p)
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True)
    out["wrk"] = (wrk.stdout or wrk.stderr).split("Copyright")[0].strip()
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("dir")
    p.set_defaults(fn=prepare)
    p = sub.add_parser("run")
    p.add_argument("dir")
    p.add_argument("--hhlo", required=True)
    p.add_argument("--peer-python", required=True)
    p.add_argument("--results", required=True)
    p.set_defaults(fn=run)
    p = sub.add_parser("table")
    p.add_argument("results")
    p.set_defaults(fn=table)
    p = sub.add_parser("versions")
    p.set_defaults(fn=versions)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
