//! One call of the one-colour engine as a file: what [`crate::solver::engine`] reads and
//! writes, and what the engine's entry points write when [`DUMP_VAR`] names a folder.
//!
//! A file is one text line, then the walls and the costs as bytes:
//!
//! ```text
//! queenattack-engine 1 n=<N> kind=<plain|priced|taken> layout=walls:u8[n*n],dist:f32le[n*n*n] source=<text>\n
//! <N² bytes, 1 on a wall or a cell taken by another colour, else 0>
//! <N³ little-endian f32: queen q's cost of ending on cell x at q·N² + x, inf where it cannot>
//! ```
//!
//! At N = 32 that is 132 kB.

use std::cell::Cell;
use std::io::{Error, ErrorKind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The first word of every instance file.
const MAGIC: &str = "queenattack-engine";
/// The format's version (the second word).
const VERSION: u32 = 1;
/// The layout the header states (the only one there is).
const LAYOUT: &str = "walls:u8[n*n],dist:f32le[n*n*n]";
/// Largest side the engine searches (its columns are kept in a `u32`).
const MAX_N: usize = 32;

/// The environment variable that makes the engine write every instance it is called with
/// into the folder it names (see the module [`crate::solver::engine`]).
pub const DUMP_VAR: &str = "QUEENATTACK_ENGINE_DUMP";
/// Most instances of each kind one process writes: the lifts call the engine thousands of
/// times a run, at up to 132 kB a call.
pub const DUMP_MAX_PER_KIND: usize = 500;

/// Who called the engine, as far as its tables tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One colour's queens on the walls alone, costs without prices: stage 2's one-colour
    /// search and proof, the bound's colour floors before any price.
    Plain,
    /// Costs with cell prices added: the rounds of the colours chosen together, the bound's
    /// colour floors at prices.
    Priced,
    /// Cells taken by other colours as walls: colour by colour (`sequential`) and the lifts.
    Taken,
}

impl Kind {
    /// Every kind, in the order of the dump's counters.
    pub const ALL: [Kind; 3] = [Kind::Plain, Kind::Priced, Kind::Taken];

    /// `plain`, `priced` or `taken`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Plain => "plain",
            Kind::Priced => "priced",
            Kind::Taken => "taken",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Kind {
    type Err = String;

    fn from_str(s: &str) -> Result<Kind, String> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown kind {s:?} (plain, priced or taken)"))
    }
}

/// One colour's instance of the engine: `n` queens (queen `q` is row `q` of `dist`) to put
/// on an N-Queens board of `n × n` cells that avoids `walls`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// The board's side (1–32).
    pub n: usize,
    /// `n²` cells, row-major: `true` on a wall or a cell another colour took.
    pub walls: Vec<bool>,
    /// `n³` costs: `dist[q · n² + x]` is queen `q`'s cost of ending on cell `x` (`∞` where
    /// it cannot; never NaN).
    pub dist: Vec<f32>,
    /// Who made it.
    pub kind: Kind,
    /// Where it came from, free text on one line.
    pub source: String,
}

fn invalid(message: String) -> Error {
    Error::new(ErrorKind::InvalidData, message)
}

impl Instance {
    /// Whether the sizes fit `n` (1–32), no cost is NaN and `source` is one line.
    pub fn check(&self) -> Result<(), String> {
        let n = self.n;
        if n == 0 || n > MAX_N {
            return Err(format!("n = {n}: the engine takes 1 to {MAX_N}"));
        }
        if self.walls.len() != n * n {
            return Err(format!("{} walls for n = {n}: want n²", self.walls.len()));
        }
        if self.dist.len() != n * n * n {
            return Err(format!("{} costs for n = {n}: want n³", self.dist.len()));
        }
        if self.dist.iter().any(|d| d.is_nan()) {
            return Err("a cost is NaN".to_string());
        }
        if self.source.contains(['\n', '\r']) {
            return Err("the source is more than one line".to_string());
        }
        Ok(())
    }

    /// The file's bytes (see the module's documentation).
    ///
    /// # Errors
    /// What [`Instance::check`] finds.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        self.check().map_err(invalid)?;
        let n = self.n;
        let header = format!(
            "{MAGIC} {VERSION} n={n} kind={} layout={LAYOUT} source={}\n",
            self.kind, self.source
        );
        let mut bytes = Vec::with_capacity(header.len() + n * n + 4 * self.dist.len());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend(self.walls.iter().map(|&w| u8::from(w)));
        for d in &self.dist {
            bytes.extend_from_slice(&d.to_le_bytes());
        }
        Ok(bytes)
    }

    /// The instance in `bytes` (see the module's documentation).
    ///
    /// # Errors
    /// `InvalidData` with what is wrong: the header, the sizes, a wall byte not 0 or 1, a NaN.
    pub fn from_bytes(bytes: &[u8]) -> Result<Instance, Error> {
        let end = bytes
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| invalid("no header line".to_string()))?;
        let header = std::str::from_utf8(&bytes[..end])
            .map_err(|_| invalid("the header is not UTF-8".to_string()))?;
        let (n, kind, source) = parse_header(header).map_err(invalid)?;
        let body = &bytes[end + 1..];
        let cells = n * n;
        if body.len() != cells + 4 * cells * n {
            return Err(invalid(format!(
                "{} bytes after the header for n = {n}: want {}",
                body.len(),
                cells + 4 * cells * n
            )));
        }
        let (walls, dist) = body.split_at(cells);
        let walls = walls
            .iter()
            .map(|&b| match b {
                0 => Ok(false),
                1 => Ok(true),
                _ => Err(invalid(format!("wall byte {b}: want 0 or 1"))),
            })
            .collect::<Result<Vec<bool>, Error>>()?;
        let dist = dist
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let instance = Instance {
            n,
            walls,
            dist,
            kind,
            source,
        };
        instance.check().map_err(invalid)?;
        Ok(instance)
    }

    /// Reads the instance in file `path`.
    ///
    /// # Errors
    /// The file's, and those of [`Instance::from_bytes`] (with the path).
    pub fn read(path: impl AsRef<Path>) -> Result<Instance, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path)?;
        Instance::from_bytes(&bytes)
            .map_err(|e| Error::new(e.kind(), format!("{}: {e}", path.display())))
    }

    /// Writes the instance to file `path`.
    ///
    /// # Errors
    /// The file's, and those of [`Instance::check`].
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        std::fs::write(path, self.to_bytes()?)
    }

    /// The cost of `cells` (queen `q` on `cells[q]`), summed in `f64`.
    ///
    /// # Panics
    /// If `cells` has not `n` cells of the board.
    pub fn cost(&self, cells: &[usize]) -> f64 {
        let nn = self.n * self.n;
        assert_eq!(cells.len(), self.n, "one cell per queen");
        cells
            .iter()
            .enumerate()
            .map(|(q, &x)| f64::from(self.dist[q * nn + x]))
            .sum()
    }

    /// Whether `cells` (one per queen) is an N-Queens board that avoids the walls.
    pub fn is_board(&self, cells: &[usize]) -> bool {
        let n = self.n;
        let mut used = vec![false; 6 * n];
        cells.len() == n
            && cells.iter().all(|&x| {
                let (r, c) = (x / n, x % n);
                let lines = [r, n + c, 2 * n + r + c, 4 * n + r + n - 1 - c];
                x < n * n
                    && !self.walls[x]
                    && lines
                        .iter()
                        .all(|&l| !std::mem::replace(&mut used[l], true))
            })
    }
}

/// `(n, kind, source)` of a header line.
fn parse_header(header: &str) -> Result<(usize, Kind, String), String> {
    let (fields, source) = header
        .split_once(" source=")
        .ok_or("no source= in the header")?;
    let words: Vec<&str> = fields.split(' ').collect();
    let [magic, version, n, kind, layout] = words[..] else {
        return Err(format!(
            "header {fields:?}: want {MAGIC} {VERSION} n= kind= layout="
        ));
    };
    if magic != MAGIC {
        return Err(format!("not an engine instance (starts {magic:?})"));
    }
    if version != VERSION.to_string() {
        return Err(format!("version {version}: this build reads {VERSION}"));
    }
    let n = n
        .strip_prefix("n=")
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| (1..=MAX_N).contains(&n))
        .ok_or_else(|| format!("{n:?}: want n=1 to n={MAX_N}"))?;
    let kind = kind
        .strip_prefix("kind=")
        .ok_or_else(|| format!("{kind:?}: want kind="))?
        .parse()?;
    if layout != format!("layout={LAYOUT}") {
        return Err(format!("{layout:?}: this build reads layout={LAYOUT}"));
    }
    Ok((n, kind, source.to_string()))
}

thread_local! {
    /// The kind the engine's calls on this thread are labelled with ([`as_kind`]).
    static KIND: Cell<Kind> = const { Cell::new(Kind::Plain) };
}

/// Runs `call` with the engine's calls on this thread labelled `kind` (the label of a dump;
/// [`Kind::Plain`] where no caller set one).
pub(crate) fn as_kind<T>(kind: Kind, call: impl FnOnce() -> T) -> T {
    /// Puts the caller's label back, also when `call` panics.
    struct Restore(Kind);
    impl Drop for Restore {
        fn drop(&mut self) {
            KIND.set(self.0);
        }
    }
    let _restore = Restore(KIND.replace(kind));
    call()
}

/// Files written so far, per kind.
static DUMPED: [AtomicUsize; 3] = [
    AtomicUsize::new(0),
    AtomicUsize::new(0),
    AtomicUsize::new(0),
];
/// Whether a failed write was reported already.
static DUMP_FAILED: AtomicBool = AtomicBool::new(false);

/// The engine's call with queens `members` (rows of `dist`) on `walls`, made by `entry`,
/// written into the folder [`DUMP_VAR`] names, if it is set (one look at the environment a
/// call): see [`dump_to`].
pub(crate) fn dump(n: usize, walls: &[bool], members: &[usize], dist: &[f32], entry: &str) {
    if let Some(folder) = std::env::var_os(DUMP_VAR) {
        dump_to(Path::new(&folder), n, walls, members, dist, entry);
    }
}

/// Writes the call into `folder` as `<kind>-n<N>-<process>-<count>.engine` (the kind
/// [`as_kind`] set on this thread), up to [`DUMP_MAX_PER_KIND`] per kind; the path written,
/// if any. Calls whose queens cannot fill a board (not `n` of them, `n` over 32) are left out.
/// A failed write is reported once on stderr and does not stop the engine.
pub(crate) fn dump_to(
    folder: &Path,
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    entry: &str,
) -> Option<PathBuf> {
    let nn = n * n;
    if n == 0 || n > MAX_N || members.len() != n {
        return None;
    }
    let kind = KIND.get();
    let count = DUMPED[kind.index()].fetch_add(1, Ordering::Relaxed);
    if count >= DUMP_MAX_PER_KIND {
        return None;
    }
    let pid = std::process::id();
    let instance = Instance {
        n,
        walls: walls.to_vec(),
        dist: members
            .iter()
            .flat_map(|&q| &dist[q * nn..(q + 1) * nn])
            .copied()
            .collect(),
        kind,
        source: format!("{entry}, process {pid}, {kind} call {count}"),
    };
    let path = folder.join(format!("{kind}-n{n}-{pid}-{count:04}.engine"));
    match instance.write(&path) {
        Ok(()) => Some(path),
        Err(e) => {
            if !DUMP_FAILED.swap(true, Ordering::Relaxed) {
                eprintln!("{DUMP_VAR}: cannot write {}: {e}", path.display());
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(n: usize) -> Instance {
        let nn = n * n;
        Instance {
            n,
            walls: (0..nn).map(|x| x % 7 == 3).collect(),
            dist: (0..n * nn)
                .map(|i| match i % 11 {
                    5 => f32::INFINITY,
                    k => k as f32 * 0.375,
                })
                .collect(),
            kind: Kind::Priced,
            source: "seed 4001, a test".to_string(),
        }
    }

    #[test]
    fn an_instance_round_trips_through_its_bytes() {
        for n in [1, 5, 32] {
            let instance = example(n);
            let bytes = instance.to_bytes().expect("valid");
            assert_eq!(
                bytes.len() - bytes.iter().position(|&b| b == b'\n').unwrap() - 1,
                n * n * (1 + 4 * n)
            );
            assert_eq!(Instance::from_bytes(&bytes).expect("readable"), instance);
        }
        let header = example(4).to_bytes().unwrap();
        let line = header.split(|&b| b == b'\n').next().unwrap();
        assert_eq!(
            std::str::from_utf8(line).unwrap(),
            "queenattack-engine 1 n=4 kind=priced layout=walls:u8[n*n],dist:f32le[n*n*n] \
             source=seed 4001, a test"
        );
    }

    #[test]
    fn bad_files_and_bad_instances_are_refused_with_the_reason() {
        let good = example(4).to_bytes().unwrap();
        let refused = |bytes: &[u8], why: &str| {
            let e = Instance::from_bytes(bytes).expect_err(why);
            assert_eq!(e.kind(), ErrorKind::InvalidData);
            assert!(e.to_string().contains(why), "{e} should say {why:?}");
        };
        refused(b"", "no header line");
        refused(&good[..good.len() - 1], "bytes after the header");
        let text = String::from_utf8_lossy(&good[..good.iter().position(|&b| b == b'\n').unwrap()])
            .into_owned();
        let body = &good[text.len()..];
        let with = |header: String| [header.as_bytes(), body].concat();
        refused(&with(text.replace("n=4", "n=33")), "want n=1 to n=32");
        refused(
            &with(text.replace("kind=priced", "kind=cheap")),
            "unknown kind",
        );
        refused(&with(text.replace("engine 1", "engine 2")), "version 2");
        refused(
            &with(text.replace("queenattack-engine", "PNG")),
            "not an engine instance",
        );
        refused(&with(text.replace("f32le", "f64le")), "layout");
        refused(&with(text.replace(" source=", " origin=")), "no source=");
        let mut wall = good.clone();
        wall[text.len() + 1] = 2;
        refused(&wall, "wall byte 2");
        let mut nan = good.clone();
        let at = nan.len() - 4;
        nan[at..].copy_from_slice(&f32::NAN.to_le_bytes());
        refused(&nan, "NaN");
        let mut two_lines = example(3);
        two_lines.source.push('\n');
        assert!(two_lines.to_bytes().is_err());
        let mut short = example(3);
        short.walls.pop();
        assert!(short.check().unwrap_err().contains("walls"));
    }

    #[test]
    fn a_board_is_checked_and_priced_per_queen() {
        let mut instance = example(4);
        instance.walls = vec![false; 16];
        // rows 0-3 in columns 1, 3, 0, 2
        let board = [1, 7, 8, 14];
        assert!(instance.is_board(&board));
        assert!(!instance.is_board(&[0, 5, 10, 15]), "one diagonal");
        assert!(!instance.is_board(&[3, 6, 9, 12]), "one anti-diagonal");
        assert!(!instance.is_board(&board[..3]));
        instance.walls[7] = true;
        assert!(!instance.is_board(&board), "a wall");
        let want: f64 = (0..4)
            .map(|q| f64::from(instance.dist[q * 16 + board[q]]))
            .sum();
        assert_eq!(instance.cost(&board), want);
    }

    #[test]
    fn a_dump_writes_the_members_rows_under_the_callers_kind() {
        let folder = std::env::temp_dir().join(format!("qa-dump-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let whole = example(5);
        // queens 5..10 of a table of 10 queens, in reverse order
        let mut dist = vec![9.0f32; 5 * 25];
        dist.extend_from_slice(&whole.dist);
        let members: Vec<usize> = (5..10).rev().collect();
        let path = as_kind(Kind::Taken, || {
            dump_to(&folder, 5, &whole.walls, &members, &dist, "test")
        })
        .expect("written");
        let read = Instance::read(&path).expect("readable");
        assert_eq!(read.kind, Kind::Taken);
        assert_eq!(read.walls, whole.walls);
        assert_eq!(&read.dist[..25], &whole.dist[4 * 25..]);
        assert!(read.source.starts_with("test, process "), "{}", read.source);
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with("taken-n5-"), "{name}");
        // the label is back to plain after the call; too few queens: no file
        assert_eq!(KIND.get(), Kind::Plain);
        assert!(dump_to(&folder, 5, &whole.walls, &members[..4], &dist, "test").is_none());
        std::fs::remove_dir_all(&folder).unwrap();
    }
}
