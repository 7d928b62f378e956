//! Every tuning constant of the solver as a named parameter: one [`Params`] with its
//! defaults (the measured choices), overridable per run (`queenattack --param name=value`,
//! listed by `queenattack --list-params`).
//!
//! The struct, its defaults, docs, ranges, the name → field setter and the listing are all
//! made by one macro from one table, so they cannot drift apart.

mod error;
mod time_shares;

pub use error::ParamError;
use std::fmt;
use std::ops::RangeInclusive;
pub use time_shares::RUN_END_MAX;

/// One parameter as listed: name, current value, range and the first sentence of its doc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamLine {
    /// Field name, as `--param` takes it.
    pub name: &'static str,
    /// Current value, in a form `--param` parses back to the same value.
    pub value: String,
    /// Allowed values, as text (`0..=1`).
    pub range: String,
    /// First sentence of the field's documentation (whole, however many lines it spans).
    pub doc: String,
}

/// Parses `value` as a `T` inside `range`.
fn parse_in<T>(name: &'static str, value: &str, range: RangeInclusive<T>) -> Result<T, ParamError>
where
    T: std::str::FromStr + PartialOrd + fmt::Display,
{
    let kind = std::any::type_name::<T>();
    let v: T = value.trim().parse().map_err(|_| ParamError::BadValue {
        name,
        value: value.to_string(),
        kind,
    })?;
    if range.contains(&v) {
        Ok(v)
    } else {
        Err(ParamError::OutOfRange {
            name,
            value: value.to_string(),
            range: format!("{}..={}", range.start(), range.end()),
        })
    }
}

/// The first sentence of a field's doc attributes (each `///` line is one `#[doc = ...]`): its
/// lines joined until a `.` ends one (at a line's end or before a space, not after `e.g`,
/// `i.e` or `vs`).
fn first_sentence(lines: &[&str]) -> String {
    let mut text = String::new();
    for line in lines {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(line.trim());
        let ends = text.match_indices(". ").map(|(i, _)| i);
        let ends = ends.chain(text.ends_with('.').then(|| text.len() - 1));
        let abbreviation = |i: usize| ["e.g", "i.e", "vs"].iter().any(|a| text[..i].ends_with(a));
        if let Some(end) = ends.into_iter().find(|&i| !abbreviation(i)) {
            text.truncate(end + 1);
            return text;
        }
    }
    text
}

/// Defines [`Params`] from a table of `doc, name: type = default, range` entries.
macro_rules! params {
    ($( $(#[doc = $doc:literal])* $name:ident : $ty:ty = $default:expr, $lo:literal ..= $hi:literal; )*) => {
        /// The solver's tuning parameters; [`Params::default`] holds the measured choices.
        /// Each field's documentation says what it tunes and the measurement that chose it.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct Params {
            $( $(#[doc = $doc])* pub $name: $ty, )*
        }

        impl Default for Params {
            fn default() -> Params {
                Params { $( $name: $default, )* }
            }
        }

        impl Params {
            /// Sets the parameter `name` to `value` (parsed as its type, checked against its
            /// range).
            ///
            /// # Errors
            /// An unknown name, a value that does not parse or lies outside the range.
            pub fn set(&mut self, name: &str, value: &str) -> Result<(), ParamError> {
                match name {
                    $( stringify!($name) => {
                        self.$name = parse_in(stringify!($name), value, $lo..=$hi)?;
                        Ok(())
                    } )*
                    _ => Err(ParamError::Unknown(name.to_string())),
                }
            }

            /// Every parameter with its current value, range and doc line, in table order.
            pub fn lines(&self) -> Vec<ParamLine> {
                vec![ $( ParamLine {
                    name: stringify!($name),
                    value: self.$name.to_string(),
                    range: format!("{}..={}", $lo, $hi),
                    doc: first_sentence(&[$($doc),*]),
                }, )* ]
            }
        }
    };
}

impl Params {
    /// Applies one `NAME=VALUE` override.
    ///
    /// # Errors
    /// As [`Params::set`], or text without `=`.
    ///
    /// # Examples
    /// ```
    /// use queenattack::solver::Params;
    /// let mut params = Params::default();
    /// params.apply("board_share=0.6").unwrap();
    /// assert_eq!(params.board_share, 0.6);
    /// assert!(params.apply("no_such=1").is_err());
    /// assert!(params.apply("board_share=2").is_err()); // a share is at most 1
    /// ```
    pub fn apply(&mut self, text: &str) -> Result<(), ParamError> {
        let (name, value) = text
            .split_once('=')
            .ok_or_else(|| ParamError::NoEquals(text.to_string()))?;
        self.set(name.trim(), value)
    }

    /// The listing of `queenattack --list-params`: one line per parameter,
    /// `name = value  # [range] doc` (the range `--param` accepts, as `low..=high`).
    pub fn listing(&self) -> String {
        self.lines()
            .iter()
            .map(|l| format!("{} = {}  # [{}] {}\n", l.name, l.value, l.range, l.doc))
            .collect()
    }
}

params! {
    // ---- the time limit and the compute budget ([`super::budget::Budget`])
    /// Share of a time limit of 2-5 s spent computing (the rest: output, process start/exit).
    /// The target is 95 % of the limit. Measured on a machine with load average ~6 on 2 cores:
    /// with 0.8 at a 1 s limit, 13 of 1000 runs were stalled past 1 s, so short limits keep a
    /// wider margin (`compute_share_short`).
    compute_share: f64 = 0.80, 0.0..=1.0;
    /// Share of the time limit spent computing for limits up to `short_limit`.
    compute_share_short: f64 = 0.70, 0.0..=1.0;
    /// Share of the time limit spent computing for limits of `long_limit` and more.
    compute_share_long: f64 = 0.88, 0.0..=1.0;
    /// Time limits (s) up to this one are short (`compute_share_short`).
    short_limit: f64 = 2.0, 0.0..=86400.0;
    /// Time limits (s) from this one on are long (`compute_share_long`).
    long_limit: f64 = 5.0, 0.0..=86400.0;
    /// A time limit of at least twice this many seconds is two runs, best kept: one of
    /// `first_run` seconds, then one of the rest (0: one run). Seeds 1201-1220 (never tuned
    /// on), `--seed` 1 and 2, one run each, one sitting: per seed mean(60 s)/mean(10 s) 0.9824,
    /// at most 1.0027; with 0 (one 60 s run) 0.9873, three seeds 1.4-3.4 % worse than 10 s.
    first_run: f64 = 10.0, 0.0..=86400.0;
    /// Extra share of the compute budget the final polish may use (after the budget's end).
    polish_share: f64 = 0.02, 0.0..=1.0;
    /// Extra share of the compute budget for the post-optimiser, after the polish.
    improve_share: f64 = 0.03, 0.0..=1.0;
    /// Share of the compute budget taken from the reordering for the polish and the improver.
    /// 0.15 and 0.3 against 0.04 on the 37 seeds of 1-100 with C >= 4 and N >= 13 at 2 s
    /// (load 9, interleaved): sums 8264 and 8085 against 8195, each worse on 22-23 seeds: no
    /// gain seen. Then a second board phase still ran into this share; once it stopped there
    /// (2026-11-25, with the faster joint pairs of `joint_pairs`), seeds 1-100 at 1 s, two
    /// interleaved runs each on a quiet machine, mean ours/reference: 0.04: 0.8440 / 0.8298
    /// (one answer with errors on seed 2), 0.15: 0.8254 / 0.8274, 0.3: 0.8289 / 0.8310, 0.45:
    /// 0.8286 / 0.8277; before the change 0.8323 / 0.8331 (C = 6: 0.15 is 2.7 % better).
    improve_early: f64 = 0.15, 0.0..=1.0;
    /// The same when the polish and improver run on several boards (`multi_start_budget`).
    /// 24 seeds of 1-100 at 10 s (2 runs each, interleaved, load 10-12): mean ours/reference
    /// 0.8895 against 0.8945; crowded big boards gained 2-5 % (seeds 44, 65, 77, 78), one
    /// colour did not (seed 27, N = 26: 48.4 and 46.0 against 46.0 twice), hence several
    /// colours only.
    improve_early_long: f64 = 0.15, 0.0..=1.0;
    /// Compute budgets (s) from which the polish and improver run on several of the best
    /// boards (boards of several colours); measured with `improve_early_long`. With the A*
    /// route searches (2026-11-25), 0.5 gave seeds 1-100 at 1 s 0.8209 / 0.8220 mean
    /// ours/reference against 0.8260 / 0.8235 (two interleaved runs each), but seed 1053
    /// (N = 12, C = 6) at 1 s ended with an error in 4 of 6 runs (mean 102.7 against 100.3):
    /// the first round ranked a half-descended board with a dropped queen first. With the race
    /// (`stage/improve/multistart.rs`) and crowded exact boards priced with the pieces
    /// (`exact_pieces_colours`), 1053 at 1 s (`--seed` 1-6): 94.5-98.0, no errors; seeds 1-100 at 1 s (two interleaved runs): 0.8171 / 0.8168 against 0.8218 /
    /// 0.8212 with 4 (C >= 4 and N <= 14: 0.982); held-out 1001-1200 at 1 s, both changes
    /// against neither: 0.991 (C >= 4: 0.985).
    multi_start_budget: f64 = 0.5, 0.0..=86400.0;
    /// How many of the best boards the multi-start post-optimiser takes.
    /// With the race, per seed against 6: 4 at 1 s 0.996 on 1-100, 0.999 held out (1001-1200),
    /// 1.002 at 10 s (29 crowded seeds); 8: 0.999 at 1 s, 0.998 at 10 s. 12 (one round): equal.
    multi_start_boards: usize = 6, 1..=1000;
    /// 1: the multi-start post-optimiser takes the routed boards in the order of the
    /// stayer-aware estimate of the boards their moves end on (`candidates::estimate::
    /// by_estimate`); 0: in the order of their routed scores (before 2026-11-29). Measured with
    /// `lift_ranked`.
    multi_start_ranked: usize = 1, 0..=1;
    /// Share of the multi-start post-optimiser's time for its race over the boards (a slice
    /// each, then the better half on, until one is left; the rest continues the winner).
    multi_start_first_round: f64 = 0.5, 0.0..=1.0;

    // ---- stage 1: distance tables
    /// Weight of the initial-board distances in the second distance table.
    pieces_share: f64 = 0.5, 0.0..=1.0;
    /// Cells the pieces cut off cost this many times their walls-only distance in the
    /// second distance table.
    pieces_cut_off: f64 = 1.5, 1.0..=100.0;
    /// Share of the compute time left the distance rows may take (start rows, the pieces
    /// table, the target rows). Before: N = 80, C = 10 at 5 s spent 4.1 s in the start rows
    /// and the pieces table and then 1.5 s in one routing, ending at 5.75 s with the empty
    /// answer. With the pipeline forced (5 s, load 8, after the descent): N = 64 routed one
    /// board, 3 838 against the descent's 4 909; N = 80 routed nothing in time; N = 128 ran
    /// out of time in the rows with 14 615 against 12 300-13 200 when the descent had the time.
    paths_share: f64 = 0.9, 0.0..=1.0;
    /// Boards with more queens x cells than this time their first distance rows.
    /// Every contest board is far below (at most 180 x 900), and timing them misled: on a
    /// loaded machine a stall of a few ms during the first rows of seed 2 (N = 30, C = 6) at
    /// 1 s projected tables too slow, and two of six runs printed the greedy answer (1160
    /// instead of ~700).
    big_board: usize = 1_000_000, 0..=1_000_000_000;
    /// Rows built before the time of the rest is projected from them (at least).
    /// So that one stall of a loaded machine does not decide alone (with `probe_share`).
    probe_rows: usize = 16, 1..=1_000_000;
    /// Share of the distance rows' time timed before the rest is projected (at least).
    probe_share: f64 = 0.05, 0.0..=1.0;

    // ---- the first answer (greedy descent)
    /// Most of the compute budget the first answer (greedy descent) may take.
    /// It usually ends sooner, at a local optimum. On contest boards the pipeline wins and the
    /// descent is a safety net: it took 4-40 ms at N = 21-30, C = 4-6 (loaded machine). Seeds
    /// 1-20 at 1 s, six runs each interleaved with the build before it (load 7-10): with a
    /// cap of 2 % the mean was 161.1 against 157.3; with 0.5 %, 158.4 against 160.4.
    first_share: f64 = 0.005, 0.0..=1.0;
    /// The same on big boards (`big_board`), where the descent may be the answer.
    /// At N = 64, C = 10 it took 0.7 s on a loaded machine and scored 4 929, where the
    /// pipeline's one routed board at 5 s scored 10 536.
    first_share_big: f64 = 0.25, 0.0..=1.0;
    /// Cells tried per queen for an ejection chain of the descent.
    /// The nearest where it attacks a single queen. Chains measured (load 10, random boards,
    /// C = 10, 10 % walls): N = 128 at 10 s, the descent without them stopped at a local
    /// optimum after 3.0 s with 13 012, with them 7 863 after 5.6 s; N = 80 at 5 s,
    /// 6 066 -> 3 982.
    chain_cells: usize = 4, 0..=1_000_000;

    // ---- stage 2a: exact boards
    /// Share of the compute budget the exact search may take (several colours).
    exact_share: f64 = 0.3, 0.0..=1.0;
    /// The same when it lists every N-Queens board (several colours, N <= 13, and N = 14 from
    /// `exact_n14_budget` on). The listing yields nothing until it is complete, and at N = 12-13
    /// it took 0.25-0.45 s (now 0.13-0.25 s), more than 0.3 of the 1 s limit's budget. At 1 s,
    /// with the faster listing, against 0.3 and the old listing (two runs each, interleaved,
    /// one sitting, per-seed ratio of the means): the 28 seeds of 1-100 with C >= 2 and
    /// N <= 13 0.955 (seeds 12, 14, 91 no longer worse than the reference); 40 such seeds of
    /// 1001-1200 0.953 (14 better, 6 worse by more than 0.5 %); all of 1-100 0.989.
    exact_share_listing: f64 = 0.6, 0.0..=1.0;
    /// Share of the compute budget the exact search may take with one colour.
    /// The search (any N <= 32) finishes up to N ~ 15 and, cut short on bigger boards, still
    /// gives better boards than the annealer. 69 one-colour seeds (N 13-30, from 1-100,
    /// 1001-1200, 2001-4000), 1 s, side by side, one run each, geometric mean of the score
    /// ratio: 0.5 against 0.3 0.996, 0.7 against 0.5 0.995, 0.85 against 0.7 0.999.
    /// With the lift search (stage 3b re-places the colour by the same search with noisy
    /// prices, 2026-11-26) less is better: the 19 one-colour seeds of 1-100 at 1 s, four runs
    /// each (`--seed` 1-4), mean per-seed ratio of the means against 0.7: 0.5 0.9859, 0.4
    /// 0.9835, 0.3 0.9820, 0.2 0.9857; held out (the first 40 one-colour seeds of 1001-1288),
    /// 0.3 against 0.7: 0.9941 at 1 s (four runs, 12 better, 7 worse), 0.9943 at 2 s (two
    /// runs). From 5 s on `exact_cap_one_colour` decides either way.
    exact_share_one_colour: f64 = 0.3, 0.0..=1.0;
    /// Longest exact search (s) with one colour.
    /// On big boards the annealer's later boards beat a longer search. 20 one-colour seeds
    /// with N >= 17 at 10 s, against main: capped at 1 s 0.976 (14 better, 4 worse); uncapped
    /// (0.7 of the budget), 35 seeds of N 13-30: 0.987 (15 better, 5 worse, all N >= 23; seed
    /// 90, N = 30: +10 %). With the proof's order in the last depth-first search
    /// (2026-11-27, issue 51; 10 s against `675bc3e`, capped at 1 s): tuning seeds (the 10
    /// one-colour seeds of 1-100 with N >= 20, one run each, side by side on 2 cores) 1 s
    /// 0.9966, 3 s (share 0.35) 0.9965, 6 s (share 0.7) 0.9984 (2 worse); held-out seeds
    /// 2005-2061 (8, `--seed` 1 and 2, 16-core device) 1 s 0.9994, 3 s 0.9933 (3 better, 0
    /// worse: 2061 reached its proven optimum 23.4489 with both seeds); on the next 8
    /// held-out one-colour seeds (2069-2115, never looked at before) 3 s and the new order
    /// together against `675bc3e`: 1.0001 (0 better, 1 worse by 0.05 %): no gain there, no
    /// loss (docs/benchmarks.md, 2026-11-27, 15:37-15:41 UTC).
    exact_cap_one_colour: f64 = 3.0, 0.0..=86400.0;
    /// Seconds (at most four fifths of the time left) the exact stage may spend, after its
    /// search, proving the cheapest board of one colour with the proof of `--bound`; the
    /// board, when the proof finishes, is routed first. 0: off (the contest's 10 s rarely
    /// lets it finish from N ~ 22 on); for long runs and tables of best answers. 16-core
    /// device, `--time-limit 80 --param first_run=1000`, 55 s with 8 proof threads
    /// (2026-11-27): seed 2039 proven in 16.9 s, its board routed at its cost 26.1631 (best
    /// answer before 26.2595); seed 27 in 42.0 s, 39.6131 (the best answer already); seeds
    /// 2005 and 2006 in 9.7 s and 8.6 s, but routed at 26.9029 and 24.6929 as before: pieces
    /// stand on the walls-only routes of 26.7268 and 24.3830.
    prove_one_colour: f64 = 0.0, 0.0..=86400.0;
    /// Threads the proof of `prove_one_colour` splits over (at most one per core).
    prove_threads: usize = 1, 1..=64;
    /// Compute budget (s) from which N = 14 with several colours lists every board.
    /// (0.4-1.3 s on seeds 48, 1005, 1013 at load 10); below it the boards are made colour by
    /// colour. 77 seeds with N = 14, C >= 2 at 1 s, side by side, one run each: 0.852 against
    /// no exact boards (74 better, 2 worse), 0.840 against the listing cut short; 19 of them
    /// at 5 s: listing against colour by colour 0.999 (8 better, 5 worse). N = 11-13, 120
    /// seeds at 1 s: colour by colour against listing 1.008 (43 better, 58 worse), so listing
    /// stays there. One colour no longer needs the gate (seed 1061, N = 14: the search takes
    /// 0.05-0.09 s; at 1 s, 21 seeds with N = 14 and C = 1: 0.976, 12 better, 0 worse).
    exact_n14_budget: f64 = 5.0, 0.0..=86400.0;
    /// How many exact boards are routed.
    /// On crowded boards the routed scores of boards with nearly equal estimates spread
    /// widely (seed 60: estimates 57.0-58.4, routed 83-148). 61 small seeds (N <= 11 with
    /// several colours, N <= 14 with one) at 1 s: 300 against 50 summed 2240 against 2309.
    exact_keep: usize = 300, 0..=1_000_000;
    /// How many exact boards are routed on boards of more than `exact_small_cells` cells.
    /// There the search prunes with the `keep`-th best board found: seed 12 (N = 13, C = 6) at
    /// 2 s found no board with 300 or 50 under load, and 20 boards in 0.30 s with 20.
    exact_keep_big: usize = 20, 0..=1_000_000;
    /// Boards of at most this many cells keep `exact_keep` exact boards (N <= 11).
    exact_small_cells: usize = 128, 0..=16384;
    /// Up to this many listed N-Queens boards, every colour may take any of them.
    /// (N <= 11 has at most 2 680)
    exact_options_all: usize = 3000, 0..=100_000_000;
    /// Beyond `exact_options_all`, listed boards kept per colour (the cheapest by a bound).
    /// N = 12 has 14 200 boards and N = 13 73 712, and the disjointness table of all of them
    /// would take seconds; 500 per colour keep it under 3 000^2 pairs.
    exact_options_per_colour: usize = 500, 1..=100_000_000;
    /// Boards of at least this many colours price exact boards with the pieces' distance table.
    /// There the walls-only table prices many cells as one straight move the pieces block: seed
    /// 2 at 10 s, the six exact boards' estimates 269-284 routed at best 332.5, priced with the
    /// pieces 312.2. The 29 seeds of 1-100 with C >= 4 and N >= 17 at 10 s (one run each, two
    /// sittings): 0.9923 (19 better, 10 worse) and 0.9906 (18 better, 11 worse) of the score
    /// with walls only. At 1 s (1-100, two runs each), with every colour count: C >= 4 and
    /// N > 14 0.984, but C = 1 and N > 14 1.009, C = 2-3 1.004-1.006: crowded boards only.
    exact_pieces_colours: usize = 4, 1..=1000;

    // ---- stages 2-4: the board phase
    /// Share of the compute time spent making candidate target boards (the rest: reordering).
    board_share: f64 = 0.75, 0.0..=1.0;
    /// The board phase's share when a routing simulation is slow (`slow_simulations`).
    board_share_slow: f64 = 0.85, 0.0..=1.0;
    /// A simulation is slow when the time left holds fewer than this many.
    slow_simulations: f64 = 1000.0, 0.0..=1e12;
    /// The board phase is cut into this many annealing runs (each also routed).
    runs_per_phase: f64 = 6.0, 1.0..=1e9;
    /// Least share of the time left for the run that must make the first board.
    /// (the first board must come even when the paths took the board phase's time)
    first_board_share: f64 = 0.25, 0.0..=1.0;
    /// Most share of the time left one annealing run may take.
    run_share_max: f64 = 0.5, 0.0..=1.0;
    /// Share of the time left that goes back to making boards when reordering gains nothing.
    /// (routing already meets the estimate, as with one colour: new boards are worth more)
    second_round_share: f64 = 0.8, 0.0..=1.0;
    /// Iterations per queen of the shortest annealing run.
    iterations_per_queen_min: f64 = 1_500.0, 0.0..=1e9;
    /// Iterations per queen of the longest annealing run.
    iterations_per_queen_max: f64 = 60_000.0, 0.0..=1e9;
    /// Iterations per queen of the first run on crowded boards (`crowded_colours`).
    /// Shorter runs end with many errors and are thrown away (seed 2, N = 30, C = 6, at 1 s:
    /// 14, 13, 10 errors in the first three boards). At 1 s, A/B side by side per seed (load
    /// 4-9), geometric mean of the score ratio, 6 000 against 1 500 for every board: seeds
    /// 1-100 0.978 (C >= 4 and N >= 16: 0.929, the other 68 seeds 0.999-1.010); held-out seeds
    /// 1001-1100 0.993 (C >= 4: 0.975-0.982, but C <= 3 and N < 16: 1.015, hence crowded
    /// boards only); the 37 seeds of 1-100 with C >= 4 and N >= 13, two runs each: 0.941, and
    /// 20 000 against 6 000 0.995 (no further gain). At 2 s it lost on the same 37 seeds (one
    /// run, load 5: 1.034, 11 better, 25 worse; at 1 s in the same sitting 0.982), hence only
    /// for compute budgets below `crowded_budget`.
    iterations_per_queen_crowded: f64 = 6_000.0, 0.0..=1e9;
    /// Boards of at least this many colours are crowded (`iterations_per_queen_crowded`).
    crowded_colours: usize = 4, 0..=1000;
    /// Compute budgets (s) below this one start crowded boards with longer runs.
    /// (the 1 s limit's 0.7 s; the 2 s limit's is 1.4 s)
    crowded_budget: f64 = 1.0, 0.0..=86400.0;
    /// Fewest iterations of a whole-board annealing run.
    min_iterations: f64 = 20_000.0, 0.0..=1e12;
    /// A whole-board run that ends with errors makes the next this many times longer.
    /// (short runs give more diverse boards, best for easy cases; crowded boards need longer)
    run_growth: f64 = 2.0, 1.0..=1000.0;
    /// A whole-board run without errors makes the next this many times as long.
    run_shrink: f64 = 0.8, 0.0..=1.0;
    /// Lowest start temperature of an annealing run (log-uniform up to `t0_max`).
    /// In units of path cost; an error costs N.
    t0_min: f64 = 1.0, 0.0..=1e9;
    /// Highest start temperature of an annealing run.
    t0_max: f64 = 10.0, 0.0..=1e9;
    /// End temperature of every annealing run.
    t1: f64 = 0.05, 0.0..=1e9;
    /// Start temperature of a run that refines the best board so far (+- `warm_t0_spread`).
    warm_t0: f64 = 0.7, 0.0..=1e9;
    /// Relative spread of the warm start temperature (uniform in 1 +- spread).
    warm_t0_spread: f64 = 0.5, 0.0..=1.0;
    /// Share of a whole-board run's iterations a warm restart runs.
    warm_iterations: f64 = 0.5, 0.0..=1000.0;
    /// Re-planning one colour of the best board starts once this many boards are ranked.
    ils_after: usize = 2, 0..=1_000_000;
    /// Every this-many-th run starts from scratch instead of re-planning one colour.
    ils_every: usize = 8, 1..=1_000_000;
    /// Re-plans need one colour or at least this many queens.
    /// On smaller boards of several colours a whole-board run costs as little as a one-colour
    /// run and finds more varied boards. Seeds with fewer than 20 queens among 1-100 at 10 s:
    /// one colour gained (seed 8: 24.33 -> 22.00), two colours lost (seed 1: 16.71 -> 17.36,
    /// seed 57: 19.19 -> 19.81) with the re-plans.
    ils_min_queens: usize = 20, 0..=1_000_000;
    /// Re-plans need routing fast enough for this many boards in the board phase.
    /// At N = 64, C = 10 (0.6 s per routing) re-plans after the first two boards ended at 2640
    /// (15 errors) where whole-board runs reached 2220 (4 errors). With 50 instead of 20,
    /// crowded contest boards at 1-2 s lost the re-plans and some did worse (seed 55 at 2 s:
    /// +70).
    ils_min_boards: f64 = 20.0, 0.0..=1e12;
    /// Start temperature of a one-colour re-plan.
    ils_t0: f64 = 1.0, 0.0..=1e9;
    /// Length of a one-colour re-plan with 4 or more colours (iterations per queen, x N).
    /// Measured on seeds 1-20 at 10 s (sum of scores): 4 000 -> 2087, 8 000 -> 1990,
    /// 16 000 -> 1975, 32 000 -> 2049.
    ils_iterations_per_queen: f64 = 16_000.0, 0.0..=1e9;
    /// Length of a re-plan with one colour (iterations per queen, x N).
    /// A re-plan perturbs the whole board and more, shorter re-plans win. The 44 one-colour
    /// seeds of 1-100 and 1001-1200, side by side per seed, geometric mean of the score ratio
    /// against 16 000: at 1 s 1 000 -> 0.985, 2 000 -> 0.987, 4 000 -> 0.988, 8 000 -> 0.992
    /// (2-5 runs each); at 2 s 4 000 -> 0.981, at 5 s 0.994, at 10 s 0.996 (one run each). On
    /// crowded boards short re-plans lose (4 000 at 1 s, the 72 seeds with C >= 4: 1.028).
    /// Rechecked at 10 s on seeds 4 and 90, `--seed` 1 and 2 (2026-11-25): 4 000 scored lowest
    /// in each of the four runs, against 1 000, 2 000, 40 000 and 400 000.
    ils_iterations_per_queen_one_colour: f64 = 4_000.0, 0.0..=1e9;
    /// Length of a re-plan with two or three colours (iterations per queen, x N).
    /// The 62 seeds with C = 2 or 3 of 1-100 and 1001-1060, side by side, against 16 000: at
    /// 1 s 8 000 -> 0.992 (2 runs), 4 000 -> 0.987 (1 run); at 2 s 8 000 -> 0.990; at 10 s
    /// (31 of them) 0.987.
    ils_iterations_per_queen_few_colours: f64 = 8_000.0, 0.0..=1e9;
    /// Least chance of a re-planned queen to go back to its start (drawn up to 1).
    /// (small: a local change; 1: the whole colour from scratch)
    ils_reset_min: f64 = 0.2, 0.0..=1.0;
    /// Chance that a re-plan of a board with errors picks one of the colours with errors.
    /// At 1 s, side by side per seed (one run each, geometric mean of the score ratio against
    /// picking any colour): the 42 seeds of 1-100 with C >= 4 0.981, the first 50 held-out
    /// seeds 1001-1200 with C >= 4 0.988.
    faulty_colour_chance: f64 = 0.8, 0.0..=1.0;
    /// Chance that a run of the board phase is a lift (stage 3b, `stage/lift/`).
    /// A lift places a whole colour of an elite routed board again by the exact one-colour
    /// search; 0 turns the lift search off (the board phase as before). Screened at 10 s on
    /// the 12 held-out seeds 1201-1265 with N >= 20 (two of each C, one run a setting, each
    /// sitting against main `3b6cbf1` interleaved; mean per-seed ratio): 0.5 -> 0.987, 0.981,
    /// 0.982, 0.979 in four sittings; 0.8 -> 0.981 (beside 0.981); 0.3 -> 0.987 (beside 0.979).
    lift_share: f64 = 0.5, 0.0..=1.0;
    /// Longest time of one lift in seconds (never more than the run's slice).
    /// Same screening: 0.1 -> 0.981 / 0.982; 0.3 -> 0.989 (beside 0.981); 0.05 -> 0.989 (beside
    /// 0.982): a shorter search finds worse boards, a longer one makes too few.
    lift_time: f64 = 0.1, 0.0..=86400.0;
    /// Chance that a lift frees two colours instead of one.
    /// Same screening, beside 0.3 -> 0.982: 0 -> 0.978, 0.6 -> 0.983 (all within the noise of
    /// one run a seed; 0.3 kept).
    lift_two: f64 = 0.3, 0.0..=1.0;
    /// Relative price noise of a lift: each cell's costs scaled by a factor in 1 +- noise.
    /// Same screening: 0.1 -> 0.981 / 0.982; 0.3 -> 0.998 (beside 0.981); 0.03 -> 0.987
    /// (beside 0.982).
    lift_noise: f64 = 0.1, 0.0..=10.0;
    /// A lift's base is the best routed board half of the time, else one of this many best.
    /// (not screened: 4 is the multi-start's order of size)
    lift_elite: usize = 4, 1..=1_000_000;
    /// Chance that a lift first takes one colour from another elite board (recombination).
    /// Only the colours that then share a cell with it are lifted (a child needing more than
    /// two is a plain lift). Same screening, beside 0 -> 0.979: 0.3 -> 0.977 (worst seed 1.004
    /// against 1.012), 0.7 -> 0.981; within the noise, kept at 0.3 for the diversity.
    lift_cross: f64 = 0.3, 0.0..=1.0;
    /// Chance that a lift's base (and its recombination partner) is drawn from the best boards
    /// by the stayer-aware estimate instead of the best routed ones (the post-optimiser's
    /// results follow the estimate; a routed score still pays the router's detours). With
    /// `lift_stayers` = 1 and the multi-start's boards taken by the same estimate, against
    /// `59e5c35` at 10 s: `tester ab` on held-out seeds with C >= 3 and N >= 14, 47 pairs, B/A
    /// 0.9916 (0.9854-0.9978), accepted at delta 1 %; 32 held-out seeds, two runs each: C >= 4
    /// 0.9904, C = 3 0.9939; at 1 s 0.9971 (docs/benchmarks.md, 2026-11-29).
    lift_ranked: f64 = 1.0, 0.0..=1.0;
    /// Share of a lift's prices taken from the walls-only routes around the queens of the other
    /// colours that stay home (`lift::around_stayers`); the rest from the distance table. Same
    /// measurement as `lift_ranked`; 0 is the table alone (before 2026-11-29).
    lift_stayers: f64 = 1.0, 0.0..=1.0;
    /// The pool keeps this many routed boards, and as many ranked ones.
    pool_size: usize = 40, 1..=1_000_000;
    /// A board is routed when it ranks among this many best by estimate as it comes.
    /// (so the routed pool holds the best candidates, and routing does not slow the re-plans)
    route_rank: usize = 4, 0..=1_000_000;

    // ---- stage 4: routing
    /// At most this many travelling queens are weighed when routing is blocked.
    max_considered: usize = 48, 1..=1_000_000;
    /// Routing gives up after this many blocked situations per queen (plus `stuck_extra`).
    stuck_per_queen: usize = 8, 0..=1_000_000;
    /// Blocked situations routing resolves beyond `stuck_per_queen` per queen.
    stuck_extra: usize = 64, 0..=1_000_000;
    /// Extra cost of stepping a blocker aside onto another queen's target.
    /// (that queen pays for it later)
    park_penalty: f64 = 1.5, 0.0..=1e6;
    /// Weight of a blocker that has arrived on its target, when a route to clear is chosen.
    /// (a queen that still travels, weight 1, costs less to push aside)
    arrived_blocker_weight: usize = 3, 0..=1_000_000;

    // ---- stage 5: reordering
    /// Fewest best boards the first reordering round takes.
    top_boards_min: usize = 3, 1..=1_000_000;
    /// The first reordering round takes 1/this of the time left.
    top_round_parts: f64 = 3.0, 1.0..=1e9;
    /// Simulations each board of the first reordering round should get.
    top_round_sims: f64 = 300.0, 1.0..=1e12;
    /// Percent of reordering moves that move a held-up queen earlier in the order.
    held_up_moves: usize = 30, 0..=100;
    /// Percent of reordering moves that move any queen in the order (after `held_up_moves`).
    order_moves: usize = 30, 0..=100;
    /// Percent of reordering moves where two queens of a colour exchange targets.
    /// (the rest: column swaps of two targets of a colour)
    target_swaps: usize = 20, 0..=100;

    // ---- stage 6: the post-optimiser
    /// Final cells tried per queen by the post-optimiser (the best by lower bound).
    targets_per_queen: usize = 8, 1..=1_000_000;
    /// Insertion times tried per final cell (besides the window ends and the original time).
    times_per_target: usize = 6, 0..=1_000_000;
    /// Final cells per queen (the best few) also tried with a stop on a parking cell.
    two_phase_targets: usize = 3, 0..=1_000_000;
    /// Queens lifted and planned anew per round of the large-neighbourhood search that
    /// follows the post-optimiser's descent (0: no rounds). Measured from the routed answers
    /// of `testcases/routed/` (2, 10) and of testcases 5, 6, 7, 9, rounds for 1 s and 3 s after
    /// the descent: 3 lifted + 6 around and 4 + 10 end within 0.3 % of each other (140.12 /
    /// 140.17 on case 10, 140.65 / 140.33 on case 9, equal on 5, 6, 7); the rounds gain at
    /// most 0.3 % over the descent's local optimum.
    lns_queens: usize = 3, 0..=1000;
    /// Queens around the lifted ones (nearest final cells) that are re-planned after each
    /// round of the large-neighbourhood search (see `lns_queens`).
    lns_around: usize = 6, 0..=1000;
    /// Every how many neighbourhood rounds lift queens of one colour only (0: never).
    /// Such a round lifts a random queen and the `lns_colour_queens` - 1 of its colour ending
    /// nearest to it.
    /// 29 crowded seeds of 1-100 (C >= 4, N >= 17) at 10 s, against 0 (per seed, interleaved):
    /// 0.9956 and 0.9974 in two runs (18 and 14 better, 8 and 12 worse); 36 such seeds of
    /// 1001-1152, one run: 0.9974 (21 better, 10 worse). Every round: 0.9997; 3 queens: 0.9970.
    lns_colour_every: usize = 2, 0..=1_000_000;
    /// Queens lifted by a one-colour round (see `lns_colour_every`). 5 instead of 4: 1.0007.
    lns_colour_queens: usize = 4, 0..=1000;
    /// Whether the descent also re-plans every pair of queens jointly (1) once same-colour
    /// swaps gain nothing, or leaves that to the neighbourhood rounds (0). A joint pass costs
    /// about 1 s on case 2 (N = 30, C = 6) against 5–40 ms for a pass of single queens, but
    /// the rounds do not replace it: after 3 s, 290.95 with it and 295.58 without on case 2,
    /// 140.12 / 142.16 on case 10. Since 2026-11-25 only pairs where one queen is in the way
    /// of a cheaper route of the other are re-planned jointly: descents to convergence from
    /// the routed answers of cases 2, 10 and seeds 208, 17, 30, 44, 61 took 0.65, 0.17, 0.91,
    /// 0.33, 0.52, 0.13, 0.30 s against 2.13, 0.29, 3.15, 0.90, 1.80, 0.21, 1.39 s, to the
    /// same scores except case 2 (292.29 against 291.63).
    joint_pairs: usize = 1, 0..=1;
    /// Share of the score a neighbourhood round may add and still be kept, at the start of
    /// the rounds (falling linearly to 0 at their deadline). 2 s of rounds on the six cases
    /// of `lns_queens`: 0.003 gives 92.68 on case 6 (0: 93.12) but 140.73 on case 9 (0:
    /// 140.65), the rest equal; 0.01 likewise. Not worth it yet.
    lns_slack: f64 = 0.0, 0.0..=1.0;
}

#[cfg(test)]
mod tests;
