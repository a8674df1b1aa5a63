//! What precondition inference may spend, counted so that the same input
//! gets the same findings on an idle and on a loaded machine.
//!
//! The unit is Z3's resource counter (`rlimit`): a solver query costs what
//! Z3 counts for it, which depends on the query, not on the machine, plus
//! [`FINAL_CHECK_STEP`] per final check of its arithmetic (the cuts and
//! branches of integer arithmetic work on big numbers that `rlimit` hardly
//! counts: measured, a query of 37,000 units took 1.4 s, one of 14,000
//! units 46 ms; their final checks told them apart). Steps
//! of our own are charged fixed amounts in the same unit (a re-run of the
//! divergence analysis under a choice of pieces, an evaluation of a CEGIS
//! spec on a sample point). A target (loop, branch, access) may spend
//! [`Budget::target`], a whole file [`Budget::file`]; targets are visited in
//! file order, so the targets that get no budget are the same on every
//! run. Wall-clock time is only a safety net ([`Budget::wall`], per file)
//! for a solver that stops counting; it is far above what the resource
//! budgets take, and findings cut off by it say so.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use z3::{Params, SatResult, Solver};

/// Resource limits of precondition inference (settings
/// `preconditions.targetBudget`, `preconditions.fileBudget`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Resource units for one target (search, synthesis and proofs).
    pub target: u64,
    /// Resource units for all targets of one file together.
    pub file: u64,
    /// Wall-clock safety net for one file.
    pub wall: Duration,
}

/// About 2 s of solver time per target and 4 s per file on the machine the
/// benchmarks ran on (Z3 counts roughly one unit per microsecond there);
/// both are counts, not times. The file budget keeps every corpus file under
/// 5 s of `lanes check` there (bench/RESULTS.md); 5,000,000 took the
/// slowest, tests/kernels/precond/prefix_sum.cl, to 6.1 s, spending the extra
/// units on targets it did not settle anyway.
pub const DEFAULT_TARGET: u64 = 2_000_000;
pub const DEFAULT_FILE: u64 = 4_000_000;
/// What `lanes build` spends unless `lanes.toml` says otherwise: a build
/// runs on every change of a project, and a fast path nobody waits for in
/// the editor is found on these too. Measured on the corpora (bench/RESULTS.md,
/// "Build time"; docs/preconditions.md, "Budgets"): on Z3's SMT core the
/// targets settled with the default budgets spend at most 552,000 units in
/// bench/kernels/paper and tests/kernels/precond (fast_walsh_transform's
/// `data[match] = t1 - t2`), and bitonic_sort.cl's targets 1,330,000
/// together; a target that no precondition settles spends all it may
/// (CEGIS refines candidates that Z3 refutes, 100,000-600,000 units a
/// round).
pub const BUILD_TARGET: u64 = 750_000;
pub const BUILD_FILE: u64 = 1_500_000;
/// Far above anything [`DEFAULT_FILE`] takes.
pub const DEFAULT_WALL: Duration = Duration::from_secs(300);

/// Charge for one final check of Z3's theory solvers (between 1 and 7 ms each on
/// the integer queries of CEGIS).
pub const FINAL_CHECK_STEP: u64 = 1_000;
/// Charge for one re-run of the divergence analysis.
pub const ANALYSIS_STEP: u64 = 2_000;
/// Charge for one evaluation of a spec on a sample point.
pub const SAMPLE_STEP: u64 = 20;

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            target: DEFAULT_TARGET,
            file: DEFAULT_FILE,
            wall: DEFAULT_WALL,
        }
    }
}

impl Budget {
    /// `lanes build`'s budget ([`BUILD_TARGET`], [`BUILD_FILE`]).
    pub fn build() -> Budget {
        Budget {
            target: BUILD_TARGET,
            file: BUILD_FILE,
            wall: DEFAULT_WALL,
        }
    }
}

/// Why a target's inference stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    /// The target's budget (or the rest of the file's, if smaller) ran out
    /// while it was searched.
    Target,
    /// The file's budget was spent by earlier targets: not tried.
    File,
    /// The wall-clock safety net.
    Wall,
}

/// The account of one file: what is left of its budget and of the current
/// target's.
#[derive(Debug)]
pub struct Meter {
    budget: Budget,
    /// Held closed by another thread: wait before the next query.
    gate: Option<Gate>,
    file_left: u64,
    target_left: u64,
    /// Spent on the current target.
    target_spent: u64,
    deadline: Instant,
    wall_hit: bool,
}

impl Meter {
    pub fn new(budget: &Budget) -> Meter {
        Meter {
            budget: *budget,
            gate: None,
            file_left: budget.file,
            target_left: 0,
            target_spent: 0,
            deadline: Instant::now() + budget.wall,
            wall_hit: false,
        }
    }

    /// A meter that waits at `gate` before each solver query while another
    /// thread holds it closed. The time waited is added to the wall-clock
    /// safety net, so waiting changes no finding.
    pub fn with_gate(mut self, gate: Gate) -> Meter {
        self.gate = Some(gate);
        self
    }

    /// Our own steps and the solver's queries wait here.
    fn wait_at_gate(&mut self) {
        if let Some(g) = &self.gate {
            self.deadline += g.wait_open();
        }
    }

    /// Starts the account of the next target.
    pub fn begin_target(&mut self) {
        self.target_left = self.budget.target.min(self.file_left);
        self.target_spent = 0;
    }

    /// Units spent on the current target.
    pub fn target_spent(&self) -> u64 {
        self.target_spent
    }

    /// Units spent on the file so far.
    pub fn file_spent(&self) -> u64 {
        self.budget.file - self.file_left
    }

    /// Units the current target may still spend.
    pub fn left(&self) -> u64 {
        self.target_left
    }

    /// Takes from the file's account what a kernel whose findings are
    /// reused spent when they were found (the kernels after it get what
    /// they would get had it run again).
    pub fn spend_file(&mut self, units: u64) {
        self.file_left -= units.min(self.file_left);
    }

    pub fn charge(&mut self, units: u64) {
        self.wait_at_gate();
        let u = units.min(self.target_left);
        self.target_left -= u;
        self.file_left -= u.min(self.file_left);
        // What was taken from the accounts: a kernel whose findings are
        // reused takes the sum from the file's account again.
        self.target_spent += u;
    }

    /// Whether the current target must stop, and why.
    pub fn exhausted(&mut self) -> Option<Exhausted> {
        if self.wall_hit || Instant::now() >= self.deadline {
            self.wall_hit = true;
            return Some(Exhausted::Wall);
        }
        if self.target_left > 0 {
            None
        } else if self.file_left == 0 && self.target_spent == 0 {
            Some(Exhausted::File)
        } else {
            // Begun: what it had (its budget, or the rest of the file's).
            Some(Exhausted::Target)
        }
    }

    pub fn is_exhausted(&mut self) -> bool {
        self.exhausted().is_some()
    }

    /// `solver.check()` within at most `cap` units (and what is left),
    /// charging what Z3 counted. `Unknown` without a query when nothing is
    /// left.
    pub fn check(&mut self, solver: &Solver, cap: Option<u64>) -> SatResult {
        self.wait_at_gate();
        if self.is_exhausted() {
            return SatResult::Unknown;
        }
        let limit = cap.map_or(self.target_left, |c| c.min(self.target_left));
        let wall = self.deadline.saturating_duration_since(Instant::now());
        let mut params = Params::new();
        params.set_u32("rlimit", limit.clamp(1, u64::from(u32::MAX)) as u32);
        params.set_u32(
            "timeout",
            wall.as_millis().clamp(1, u128::from(u32::MAX)) as u32,
        );
        // Z3's SMT core only. A fresh solver that is not incremental runs
        // the default tactic for its logic instead (QF_NIA here), which
        // chooses its steps by the memory Z3 has allocated in the whole
        // process (qfnia skips cofactoring above 20 MB and bit-blasting
        // above 100 MB) and by wall-clock time (2 s and 3 s `try_for`):
        // what a query cost depended on other threads' contexts, the
        // process's history and the machine's load.
        params.set_bool("ignore_solver1", true);
        solver.set_params(&params);
        let before = counters(solver);
        let t0 = Instant::now();
        let r = interruptible_check(solver, wall);
        let after = counters(solver);
        // The counters are 32 bits wide in the statistics.
        let delta = |a: u64, b: u64| a.wrapping_sub(b) & u64::from(u32::MAX);
        let counted = delta(after.0, before.0) + FINAL_CHECK_STEP * delta(after.1, before.1);
        if std::env::var_os("LANES_METER_DEBUG").is_some() {
            eprintln!(
                "meter: limit {limit} rlimit {} finals {} us {} -> {r:?}",
                delta(after.0, before.0),
                delta(after.1, before.1),
                t0.elapsed().as_micros()
            );
        }
        // `rlimit` bounds Z3's own count only, not the final checks (on
        // the SMT core most of a query's units): a query may count several
        // times its limit. It is charged what it counted up to what the
        // target has left, so neither account goes beyond its budget.
        self.charge(counted);
        r
    }
}

/// Lets a thread hold precondition inference between two solver queries.
/// The language server closes it while it answers an edit: on a machine
/// with two cores (or two hyperthreads of one) a solver on the other one
/// slows the front end down by half, and inference can wait.
#[derive(Clone, Debug, Default)]
pub struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    /// Queries wait from now on (the one running finishes).
    pub fn close(&self) {
        *self.lock() = true;
    }

    pub fn open(&self) {
        *self.lock() = false;
        self.0 .1.notify_all();
    }

    pub fn is_open(&self) -> bool {
        !*self.lock()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, bool> {
        self.0 .0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits while the gate is closed, at most [`GATE_HOLD`] (a holder that
    /// forgot it cannot stop inference for good); how long it waited.
    fn wait_open(&self) -> Duration {
        let start = Instant::now();
        let mut closed = self.lock();
        while *closed {
            let left = GATE_HOLD.saturating_sub(start.elapsed());
            if left.is_zero() {
                break;
            }
            closed = match self.0 .1.wait_timeout(closed, left) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
        start.elapsed()
    }
}

/// The longest a closed [`Gate`] holds a query.
pub const GATE_HOLD: Duration = Duration::from_secs(5);

/// Z3's resource counter of the thread's context and the solver's final
/// checks so far.
fn counters(solver: &Solver) -> (u64, u64) {
    let stats = solver.get_statistics();
    let get = |key: &str| match stats.value(key) {
        Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
        Some(z3::StatisticsValue::Double(d)) => d as u64,
        None => 0,
    };
    (get("rlimit count"), get("final checks"))
}

/// `solver.check()`, interrupted from a watchdog thread shortly after
/// `time` in case the solver does not look at its own timeout (Z3's
/// non-linear arithmetic does not, often).
fn interruptible_check(solver: &Solver, time: Duration) -> SatResult {
    let ctx = z3::Context::thread_local();
    let handle = ctx.handle();
    let (done, wait) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        let handle = &handle;
        s.spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                wait.recv_timeout(time + Duration::from_millis(20))
            {
                handle.interrupt();
            }
        });
        let r = solver.check();
        drop(done);
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_gate_holds_the_meter_until_opened_and_moves_the_deadline() {
        let gate = Gate::default();
        gate.close();
        let mut m = Meter::new(&Budget::default()).with_gate(gate.clone());
        m.begin_target();
        let before = m.deadline;
        let opener = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                gate.open();
            })
        };
        m.charge(1);
        opener.join().unwrap();
        assert!(gate.is_open());
        assert!(m.deadline >= before + Duration::from_millis(50));
        assert_eq!(m.target_spent(), 1);
    }
    use z3::ast::Int;

    fn hard_query(s: &Solver) {
        // x * y == 2^31 - 1 (a prime) with x, y > 1: non-linear, unsat,
        // and not cheap.
        let x = Int::new_const("x");
        let y = Int::new_const("y");
        let z = Int::new_const("z");
        s.assert((&x * &y).eq(Int::from_i64((1 << 31) - 1)));
        s.assert(x.gt(Int::from_i64(1)));
        s.assert(y.gt(Int::from_i64(1)));
        s.assert((&x * &z).eq(&y * &y + Int::from_i64(7)));
    }

    #[test]
    fn a_query_is_charged_what_z3_counts_and_stops_at_the_limit() {
        let budget = Budget {
            target: 50_000,
            file: 1_000_000,
            wall: DEFAULT_WALL,
        };
        let mut m = Meter::new(&budget);
        m.begin_target();
        let s = Solver::new();
        hard_query(&s);
        assert_eq!(m.check(&s, None), SatResult::Unknown);
        assert_eq!(m.target_spent(), 50_000);
        assert_eq!(m.exhausted(), Some(Exhausted::Target));
        assert_eq!(m.check(&s, None), SatResult::Unknown);
        // The file account went down by the target's budget, no more.
        assert_eq!(m.file_spent(), 50_000);
    }

    #[test]
    fn the_same_query_costs_the_same() {
        let cost = || {
            let mut m = Meter::new(&Budget::default());
            m.begin_target();
            let s = Solver::new();
            let x = Int::new_const("a");
            s.assert(x.gt(Int::from_i64(3)));
            s.assert((&x * Int::from_i64(2)).lt(Int::from_i64(9)));
            assert_eq!(m.check(&s, None), SatResult::Sat);
            m.target_spent()
        };
        assert_eq!(cost(), cost());
    }

    /// Other contexts' memory, and the process's Z3 history, change no
    /// count: Z3's default solver chose among its tactics by the memory
    /// Z3 had allocated in the whole process (and by wall-clock time).
    #[test]
    fn a_query_costs_the_same_while_another_context_holds_memory() {
        // Each in a thread of its own: a fresh context (term ids matter).
        let cost = || {
            std::thread::spawn(|| {
                let mut m = Meter::new(&Budget::default());
                m.begin_target();
                let s = Solver::new();
                // CEGIS's proof of a clause of the fast Walsh transform: the
                // group x0..x0+3 (x0 % 4 == 0) lies in one block of size t.
                let x0 = Int::new_const("x0");
                let t = Int::new_const("t");
                let c = Int::from_i64;
                s.assert(x0.ge(c(0)) & x0.le(c(512)) & t.ge(c(1)) & t.le(c(64)));
                s.assert(x0.modulo(c(4)).eq(c(0)) & t.modulo(c(8)).eq(c(0)));
                s.assert(x0.div(&t).eq((&x0 + c(3)).div(&t)).not());
                let r = m.check(&s, Some(300_000));
                (r, m.target_spent(), memory())
            })
            .join()
            .unwrap()
        };
        let alone = cost();
        let (held, release) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let holder = std::thread::spawn(move || {
            let terms: Vec<Int> = (0..200_000)
                .map(|i| Int::new_const(format!("h{i}")) * Int::from_i64(i))
                .collect();
            held.send(()).unwrap();
            release_rx.recv().ok();
            drop(terms);
        });
        release.recv().unwrap();
        let beside = cost();
        drop(release_tx);
        holder.join().unwrap();
        assert!(beside.2 > alone.2 + 20.0, "{alone:?} {beside:?}");
        assert_eq!((alone.0, alone.1), (beside.0, beside.1));
    }

    /// Megabytes Z3 has allocated in the process (all contexts).
    fn memory() -> f64 {
        match Solver::new().get_statistics().value("memory") {
            Some(z3::StatisticsValue::Double(d)) => d,
            Some(z3::StatisticsValue::UInt(n)) => f64::from(n),
            None => 0.0,
        }
    }

    #[test]
    fn the_file_budget_is_shared_by_targets_in_order() {
        let budget = Budget {
            target: 300,
            file: 500,
            wall: DEFAULT_WALL,
        };
        let mut m = Meter::new(&budget);
        m.begin_target();
        m.charge(1_000);
        assert_eq!(m.exhausted(), Some(Exhausted::Target));
        m.begin_target();
        assert_eq!(m.left(), 200);
        m.charge(200);
        // Begun with the rest of the file's budget: its own ran out.
        assert_eq!(m.exhausted(), Some(Exhausted::Target));
        m.begin_target();
        assert_eq!(m.exhausted(), Some(Exhausted::File));
    }
}
