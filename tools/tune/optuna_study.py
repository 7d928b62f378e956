#!/usr/bin/env python3
"""An Optuna study over the solver's named parameters (docs/tuning.md).

Each trial runs `tester run --jsonl --shuffle` with `--param NAME=VALUE` for every tuned
parameter, reads the seeds' lines as they come, reports each seed's relative score
(reference score / trial's score, 1.0 = as good as the reference) to Optuna with the seed as the
step, and lets WilcoxonPruner stop a trial that is clearly worse than the best one. The study
lives in a SQLite file: run the same command again to add trials, look at it with
`optuna-dashboard sqlite:///runs/tune/study.db`.

Nothing is left behind: each trial's tester runs in its own process group and gets SIGTERM when
this script dies, however it dies (Linux PR_SET_PDEATHSIG); SIGINT, SIGTERM and SIGHUP stop
the running tester, mark the running trial FAIL and exit 128 + the signal. On start, a RUNNING
trial whose study process is gone (killed outright) is marked FAIL, and the solver's defaults
are queued again unless a finished trial ran them.

Example:
    python3 tools/tune/optuna_study.py --trials 40 --seeds 1001-1100 --time-limit 1
"""
import argparse
import ctypes
import json
import math
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / "target" / "tune-venv" / "bin" / "python"
FAILED_VALUE = 0.0  # a seed that is not ok counts 0, like the contest's relative score
ZERO_SCORE_VALUE = 10.0  # a score of 0 against a positive reference (the cap of the ratio)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOP_WAIT = 10.0  # seconds tester gets to stop its solvers and save its run, then SIGKILL
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
try:
    LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
except OSError:
    LIBC = None


class Stopped(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP came. A KeyboardInterrupt, so that Optuna treats it as it treats
    Ctrl-C: the running trial is marked FAIL and the exception goes on up to main()."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def stop_on_signals():
    """Turns the first SIGINT, SIGTERM or SIGHUP into Stopped; later ones are ignored, so that
    they cannot cut the cleanup short."""
    def stop(signum, _frame):
        for s in STOP_SIGNALS:
            signal.signal(s, lambda *_: None)
        if "optuna" in sys.modules:  # its warning with a traceback says nothing main() won't
            sys.modules["optuna"].logging.set_verbosity(sys.modules["optuna"].logging.ERROR)
        raise Stopped(signum)

    for s in STOP_SIGNALS:
        signal.signal(s, stop)


def process_start(pid):
    """The start time of process `pid` (field 22 of /proc/PID/stat) as text, None if it is gone
    or not running; "" without /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "" if not Path("/proc/self").exists() else None
    fields = stat[stat.rindex(")") + 2:].split()  # fields from the 3rd (state) on
    return None if fields[0] in ("Z", "X") else fields[19]


# This study process, recorded on every trial it runs (user attribute `worker`): host, pid and
# start time tell a dead process from a live one, even after its pid was reused.
WORKER = f"{socket.gethostname()}|{os.getpid()}|{process_start('self')}"


def worker_gone(worker):
    """Whether the study process `worker` (a WORKER value) has ended; a process of another
    host cannot be checked and counts as running."""
    host, pid, start = worker.split("|")
    if host != socket.gethostname():
        return False
    now = process_start(int(pid))
    if now == "":  # no /proc: ask the kernel whether the pid exists
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass
        return False
    return now is None or now != start


def die_with_parent(parent):
    """Runs in the forked child before tester starts: its own process group (the terminal's
    Ctrl-C reaches only this script, which stops tester itself) and SIGTERM when this script
    dies, even by SIGKILL (tester then stops its solvers and exits)."""
    os.setpgid(0, 0)
    if LIBC is not None:
        LIBC.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGTERM), ctypes.c_ulong(0),
                   ctypes.c_ulong(0), ctypes.c_ulong(0))
        if os.getppid() != parent:  # the parent died before the prctl: no signal will come
            os.kill(os.getpid(), signal.SIGTERM)


def ensure_optuna():
    """Imports optuna, re-running this script with target/tune-venv's Python if it lacks it."""
    try:
        import optuna  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        # A venv's python is a symlink to the system one: tell them apart by sys.prefix.
        if VENV_PYTHON.exists() and Path(sys.prefix).resolve() != VENV_PYTHON.parents[1].resolve():
            os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), __file__] + sys.argv[1:])
        sys.exit(
            "optuna_study.py: needs optuna and scipy: python3 -m venv target/tune-venv && "
            "target/tune-venv/bin/pip install -r tools/tune/requirements.txt "
            "(this script then uses target/tune-venv by itself)"
        )


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Tune the solver's named parameters with Optuna (docs/tuning.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--trials", type=int, help="trials to run now (added to the study); required")
    p.add_argument("--seeds", help="seed list for tester, e.g. 1001-1100; required")
    p.add_argument("--time-limit", type=float, help="the solver's seconds per seed; required")
    p.add_argument("--print-space", action="store_true",
                   help="print the parameters that would be tuned and their ranges (JSON) and exit")
    p.add_argument("--param-space", type=Path, help="TOML or JSON file: the parameters to tune and their ranges")
    p.add_argument("--storage", help="Optuna storage URL (default: sqlite:///runs/tune/study.db)")
    p.add_argument("--study-name", help="default: queenattack-<seeds>-<time limit>s")
    p.add_argument("--tester", type=Path, help="tester binary (default: target/release/tester, else target/debug/tester)")
    p.add_argument("--solver", type=Path, help="solver binary (default: target/release/queenattack)")
    p.add_argument("--jobs", type=int, help="tester --jobs (default: tester's, the number of cores)")
    p.add_argument("--bests", type=Path, help="reference = the best known scores of this bests file "
                   "(seeds it lacks: the defaults' score); default: the defaults' score")
    p.add_argument("--kill-margin", type=float, default=1.0,
                   help="tester kills a solver this many seconds after --time-limit")
    p.add_argument("--p-threshold", type=float, default=0.1, help="WilcoxonPruner's p_threshold")
    p.add_argument("--sampler-seed", type=int, help="seed of the TPE sampler (default: random)")
    p.add_argument("--out", type=Path, default=Path("runs/tune"), help="folder of the trials' run folders")
    args = p.parse_args(argv)
    if args.print_space:
        return args
    missing = [f"--{k.replace('_', '-')}" for k in ("trials", "seeds", "time_limit")
               if getattr(args, k) is None]
    if missing:
        p.error(f"the following arguments are required: {', '.join(missing)}")
    if args.trials < 0 or args.time_limit <= 0:
        p.error("--trials must be >= 0 and --time-limit > 0")
    return args


def default_path(candidates, what):
    for c in candidates:
        if c.exists():
            return c
    sys.exit(f"optuna_study.py: no {what} at {' or '.join(map(str, candidates))}: "
             "build it (cargo build --release --workspace) or pass its path")


def list_params(solver):
    """`name = default  # [LO..=HI] doc` lines of `solver --list-params`, as {name: (default,
    doc, (LO, HI) or None)}: the range is the one the solver accepts for `--param`."""
    try:
        out = subprocess.run([str(solver), "--list-params"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        sys.exit(f"optuna_study.py: cannot run {solver}: {e}")
    if out.returncode != 0:
        sys.exit(f"optuna_study.py: `{solver} --list-params` failed (exit {out.returncode}): "
                 f"{out.stderr.strip()[:500]}\n(the solver must list its named parameters)")
    params = {}
    for line in out.stdout.splitlines():
        body, _, doc = line.partition("#")
        name, eq, default = body.partition("=")
        if eq and name.strip():
            params[name.strip()] = (default.strip(), *declared_range(doc.strip()))
    if not params:
        sys.exit(f"optuna_study.py: `{solver} --list-params` printed no `name = default` line")
    return params


def declared_range(doc):
    """`[LO..=HI] rest` → (rest, (LO, HI)); a doc without a range → (doc, None)."""
    if doc.startswith("[") and "..=" in doc and "]" in doc:
        inside, _, rest = doc[1:].partition("]")
        lo, _, hi = inside.partition("..=")
        try:
            return rest.strip(), (number(lo), number(hi))
        except ValueError:
            pass
    return doc, None


def number(text):
    try:
        return int(text)
    except ValueError:
        return float(text)


def default_space(params):
    """Every parameter with a non-zero numeric default, from default/2 to default*2 within the
    range the solver declares (integers stay integers, positive floats on a log scale)."""
    space = {}
    for name, (default, _, declared) in params.items():
        try:
            d = number(default)
        except ValueError:
            continue  # not a number: kept at its default
        if d == 0 or (isinstance(d, float) and not math.isfinite(d)):
            continue
        lo, hi = sorted((d / 2, d * 2))
        if isinstance(d, int):
            lo, hi = math.floor(lo), math.ceil(hi)
        if declared:
            # a value the solver refuses would only waste a trial (it scores 0)
            lo, hi = max(lo, declared[0]), min(hi, declared[1])
        if lo >= hi:
            continue
        if isinstance(d, int):
            space[name] = {"type": "int", "low": int(lo), "high": int(hi)}
        else:
            space[name] = {"type": "float", "low": lo, "high": hi, "log": lo > 0}
    return space


def load_space(path, params):
    """The param-space file: {"params": {NAME: {"type": "int"|"float"|"categorical", "low",
    "high", "log", "step", "choices"}}} in TOML ([params.NAME] tables) or JSON."""
    text = path.read_text()
    if path.suffix == ".json":
        doc = json.loads(text)
    else:
        import tomllib
        doc = tomllib.loads(text)
    space = doc.get("params", doc)
    for name, spec in space.items():
        if name not in params:
            sys.exit(f"optuna_study.py: {path}: `{name}` is not a parameter of the solver "
                     f"(it has: {', '.join(params)})")
        kind = spec.get("type") or ("categorical" if "choices" in spec else
                                    "int" if isinstance(spec.get("low"), int) and isinstance(spec.get("high"), int)
                                    else "float")
        if kind not in ("int", "float", "categorical"):
            sys.exit(f"optuna_study.py: {path}: {name}: type must be int, float or categorical")
        if kind == "categorical" and not spec.get("choices"):
            sys.exit(f"optuna_study.py: {path}: {name}: a categorical needs `choices`")
        if kind != "categorical" and not ("low" in spec and "high" in spec and spec["low"] < spec["high"]):
            sys.exit(f"optuna_study.py: {path}: {name}: needs low < high")
        declared = params[name][2]
        values = spec.get("choices", []) if kind == "categorical" else [spec["low"], spec["high"]]
        if declared and any(not declared[0] <= v <= declared[1] for v in values):
            sys.exit(f"optuna_study.py: {path}: {name}: the solver accepts only "
                     f"{declared[0]}..={declared[1]}")
        spec["type"] = kind
    return space


def suggest(trial, space):
    values = {}
    for name, s in space.items():
        if s["type"] == "int":
            values[name] = trial.suggest_int(name, s["low"], s["high"], step=s.get("step", 1), log=s.get("log", False))
        elif s["type"] == "float":
            values[name] = trial.suggest_float(name, s["low"], s["high"], step=s.get("step"), log=s.get("log", False))
        else:
            values[name] = trial.suggest_categorical(name, s["choices"])
    return values


def in_space(value, s):
    if s["type"] == "categorical":
        return value in s["choices"]
    return s["low"] <= value <= s["high"]


class Runner:
    """Starts `tester run --jsonl` and yields the seeds' objects as they come."""

    def __init__(self, args, tester, solver):
        self.args, self.tester, self.solver = args, tester, solver
        self.current = None  # the tester running now, if any

    def command(self, params, out, shuffle_seed=None):
        exec_line = [str(self.solver), "--time-limit", str(self.args.time_limit)]
        for name, value in params.items():
            exec_line += ["--param", f"{name}={value}"]
        cmd = [str(self.tester), "run", "--jsonl", "--quiet", "--allow-failures", "--force",
               "--seeds", self.args.seeds, "--out", str(out),
               "--time-limit", str(self.args.time_limit + self.args.kill_margin),
               "--exec", shlex.join(exec_line)]
        if shuffle_seed is not None:
            cmd += ["--shuffle", "--shuffle-seed", str(shuffle_seed)]
        if self.args.jobs:
            cmd += ["--jobs", str(self.args.jobs)]
        return cmd

    def run(self, params, out, shuffle_seed=None):
        out.mkdir(parents=True, exist_ok=True)
        log = open(str(out) + ".log", "w")
        parent = os.getpid()
        proc = subprocess.Popen(self.command(params, out, shuffle_seed), stdout=subprocess.PIPE,
                                stderr=log, text=True, preexec_fn=lambda: die_with_parent(parent))
        self.current = proc
        return proc, log

    def stop(self):
        """Ends the running tester, if any: SIGTERM to its process group (tester stops its
        solvers and saves its run), SIGKILL if it is still there after STOP_WAIT seconds."""
        proc, self.current = self.current, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.communicate(timeout=STOP_WAIT)  # read its stdout so that it never blocks on it
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            proc.wait()


def finish(runner, proc, log, stopped):
    """Waits for tester; an exit code other than 0 is an error unless we stopped it."""
    code = proc.wait()
    runner.current = None
    log.close()
    if not stopped and code != 0:
        tail = Path(log.name).read_text()[-2000:]
        sys.exit(f"optuna_study.py: tester exited with code {code}; {log.name}:\n{tail}")


def seed_value(line, reference):
    """The relative score of one seed: reference / score, 1.0 = as good as the reference."""
    if line["status"] != "ok":
        return FAILED_VALUE
    score, ref = line["score"], reference.get(str(line["seed"]))
    if ref is None:
        return 1.0  # the reference failed on this seed: any ok answer is as good as it gets
    if score <= 0:
        return 1.0 if ref <= 0 else ZERO_SCORE_VALUE
    return min(ref / score, ZERO_SCORE_VALUE)


def reference_scores(study, args, runner, defaults):
    """Per-seed reference scores, kept in the study (user attribute `reference`): the bests
    file's, then the defaults' (one run of the solver's defaults, made once per study)."""
    reference = dict(study.user_attrs.get("reference", {}))
    if reference:
        return reference
    if args.bests:
        for entry in json.loads(args.bests.read_text()).get("bests", []):
            reference[str(entry["seed"])] = entry["score"]
    out = args.out / study.study_name / "reference"
    print(f"reference: the solver's defaults on seeds {args.seeds} ({out})", file=sys.stderr)
    proc, log = runner.run(defaults, out)
    for text in proc.stdout:
        line = json.loads(text)
        if line["status"] == "ok":
            reference.setdefault(str(line["seed"]), line["score"])
    finish(runner, proc, log, False)
    study.set_user_attr("reference", reference)
    return reference


def objective_for(args, runner, space, reference):
    import optuna

    def objective(trial):
        trial.set_user_attr("worker", WORKER)
        # Parameters not tuned keep the solver's own defaults (no --param for them).
        params = suggest(trial, space)
        out = args.out / trial.study.study_name / f"trial-{trial.number}"
        proc, log = runner.run(params, out, shuffle_seed=trial.number)
        values, stopped = [], False
        try:
            for text in proc.stdout:
                line = json.loads(text)
                value = seed_value(line, reference)
                values.append(value)
                trial.report(value, line["seed"])
                if trial.should_prune():
                    stopped = True
                    proc.terminate()  # tester stops its solvers and exits 143
                    for _ in proc.stdout:
                        pass
                    break
        except BaseException:
            runner.stop()  # Stopped (or any error): tester must not outlive its trial
            log.close()
            raise
        finish(runner, proc, log, stopped)
        if not values:
            raise optuna.TrialPruned("no seed finished")
        trial.set_user_attr("seeds_run", len(values))
        trial.set_user_attr("pruned", stopped)
        # Optuna's advice for WilcoxonPruner: return the mean so far rather than raise
        # TrialPruned, so the sampler learns from pruned trials too.
        return sum(values) / len(values)

    return objective


def fail_stale_trials(study):
    """Marks FAIL the RUNNING trials whose study process has ended (killed before it could do
    it itself); a trial of a live process or of another host, or one that records no process
    (an older version of this script), is left as it is."""
    from optuna.trial import TrialState

    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        worker = t.user_attrs.get("worker")
        if worker and worker_gone(worker):
            study.tell(t.number, state=TrialState.FAIL, skip_if_finished=True)
            print(f"trial {t.number}: its study process ({worker}) is gone: marked FAIL",
                  file=sys.stderr)


def defaults_queued_or_run(study, defaults):
    """Whether a trial ran the solver's defaults to the end (COMPLETE), waits to run them
    (WAITING, as enqueued) or runs them now in a live study process."""
    from optuna.trial import TrialState

    for t in study.get_trials(deepcopy=False):
        if t.state == TrialState.COMPLETE:
            params = t.params
        elif t.state == TrialState.WAITING:
            params = t.system_attrs.get("fixed_params", {})
        elif t.state == TrialState.RUNNING and t.user_attrs.get("worker"):
            params = t.params
        else:
            continue
        if params == defaults:
            return True
    return False


def main(argv):
    stop_on_signals()
    try:
        return run(argv)
    except Stopped as stop:
        # Optuna has marked the running trial FAIL; the tester of that trial is ended here (if
        # the objective did not already).
        print(f"optuna_study.py: stopped by {stop}: the running trial is marked FAIL; run the "
              "same command again to go on", file=sys.stderr)
        return 128 + stop.signum
    finally:
        if RUNNER is not None:
            RUNNER.stop()


RUNNER = None  # the Runner of this study, so that main() can end its tester on any way out


def run(argv):
    global RUNNER
    if "--check-deps" in argv:
        ensure_optuna()
        return 0
    args = parse_args(argv)
    if args.print_space:
        solver = args.solver or default_path([ROOT / "target/release/queenattack"], "solver")
        params = list_params(solver)
        space = load_space(args.param_space, params) if args.param_space else default_space(params)
        print(json.dumps(space, indent=1, sort_keys=True))
        return 0
    ensure_optuna()
    import warnings

    import optuna

    # WilcoxonPruner is marked experimental (since Optuna 3.6); the warning says nothing new.
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    tester = args.tester or default_path([ROOT / "target/release/tester", ROOT / "target/debug/tester"], "tester")
    solver = args.solver or default_path([ROOT / "target/release/queenattack"], "solver")
    params = list_params(solver)
    space = load_space(args.param_space, params) if args.param_space else default_space(params)
    if not space:
        sys.exit("optuna_study.py: nothing to tune (no numeric parameter; pass --param-space)")
    defaults = {name: number(d) if d else d for name, (d, _, _) in params.items() if name in space}
    args.out.mkdir(parents=True, exist_ok=True)
    storage = args.storage or f"sqlite:///{args.out / 'study.db'}"
    name = args.study_name or f"queenattack-{args.seeds}-{args.time_limit:g}s"
    sampler = optuna.samplers.TPESampler(seed=args.sampler_seed)
    pruner = optuna.pruners.WilcoxonPruner(p_threshold=args.p_threshold)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(study_name=name, storage=storage, direction="maximize",
                                sampler=sampler, pruner=pruner, load_if_exists=True)
    print(f"study {name} in {storage}: {len(study.trials)} trials so far; tuning "
          f"{', '.join(space)}", file=sys.stderr)
    runner = RUNNER = Runner(args, tester, solver)
    reference = reference_scores(study, args, runner, defaults)
    fail_stale_trials(study)
    in_range = all(in_space(defaults[n], space[n]) for n in space)
    if in_range and not defaults_queued_or_run(study, defaults):
        study.enqueue_trial(defaults)  # the defaults are a candidate: the winner is never worse here
    start = time.monotonic()

    def progress(study, trial):
        state = "pruned" if trial.user_attrs.get("pruned") else trial.state.name.lower()
        print(f"trial {trial.number}: {state}, value {trial.value}, seeds "
              f"{trial.user_attrs.get('seeds_run')}, params {trial.params}", file=sys.stderr)

    study.optimize(objective_for(args, runner, space, reference), n_trials=args.trials,
                   callbacks=[progress])
    full = [t for t in study.trials if t.value is not None and not t.user_attrs.get("pruned")]
    done = [t for t in study.trials if t.value is not None]
    if not done:
        print(f"{len(study.trials)} trials in the study, none finished yet")
        return 0
    best = max(full, key=lambda t: t.value) if full else study.best_trial
    print(f"{len(study.trials)} trials in the study ({len(full)} ran every seed), "
          f"{time.monotonic() - start:.1f} s now; best trial {best.number}")
    print(f"best value: {best.value:.6f}")
    print(f"best params: {json.dumps(best.params, sort_keys=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
