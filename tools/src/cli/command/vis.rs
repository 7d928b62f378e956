//! `tester vis`: one self-contained visualizer page (page and data in one HTML file), and/or
//! the replay as an animated GIF (`--gif`, drawn by [`crate::animation`]); with two outputs,
//! one page of both answers side by side ([`crate::vis::pair`]).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args as ClapArgs};

use crate::animation::{checked_cell, write_gif as stream_gif, GifOptions};
use crate::cli::args::CaseArgs;
use crate::cli::pages::write_page;
use crate::cli::readcap::{read_input_text, read_text};
use crate::cli::replace::open_output;
use crate::cli::same_file::Inputs;
use crate::gen::generate;
use crate::input::Input;
use crate::judge::judge;
use crate::vis::pair::{render_pair_page, Answer, PairData};
use crate::vis::{PageData, PAGE_OUTPUT_MAX};

/// Exit codes of `tester vis`, as `tester vis --help` states them (those of `tester score`).
pub const EXIT_HELP: &str = "Exit codes: 0 the output is valid (with two, both are); 1 it is \
not (the page or GIF is still written, replaying up to the failing move, and the judge's message \
is said): another seed's answer shown on this one is caught here, as `tester score` catches it; \
2 bad usage or input (nothing written).";

/// Options of `tester vis`.
#[derive(ClapArgs, Debug)]
#[command(group(ArgGroup::new("target").required(true).multiple(true).args(["page", "gif"])))]
#[command(after_help = format!("{EXIT_HELP}\n\n{}", crate::cli::args::LIMITS_HELP))]
pub struct Args {
    /// The case (`--seed` or `--input`) and the output to replay.
    #[command(flatten)]
    pub case: CaseArgs,
    /// A second output of the same case (answer B): the page then shows both answers side by
    /// side, stepped together, with the judge's numbers of both and their difference (needs
    /// -o, not --gif). An output next to a `SEED.in` (as in a run folder) is checked to answer
    /// the case shown.
    #[arg(value_name = "OUTPUT_B", conflicts_with = "gif")]
    pub second: Option<PathBuf>,
    /// The HTML file to write. It needs nothing else: open it in any browser, offline, or share
    /// it; append `#move=123` or `#move=end` to the address to open that move.
    #[arg(short = 'o', long = "out", value_name = "PAGE")]
    pub page: Option<PathBuf>,
    /// Write the replay as an animated GIF (GIF89a, loops) drawn like the page: board, walls,
    /// queens with their attacker counts, the last move and its queen's path, and the numbers
    /// under the board. More moves than --gif-frames are sampled evenly (first and last board
    /// kept). An invalid output plays up to the failing move, shown in red with the judge's
    /// message. The last frame is held 2 s. A file (or a symbolic link) at OUT.gif is replaced
    /// once the GIF is whole, never written through; a device or pipe (`/dev/stdout`) takes the
    /// frames as they come.
    #[arg(long, value_name = "OUT.gif")]
    pub gif: Option<PathBuf>,
    /// Time per GIF frame, in ms (20..=10000).
    #[arg(long, value_name = "MS", default_value_t = GifOptions::default().delay_ms, requires = "gif")]
    pub gif_delay: u32,
    /// At most this many GIF frames (2..=1000); longer replays are sampled evenly. A frame
    /// draws each queen's path merged (every stretch once), so its time does not grow with the
    /// number of moves: 54 000 moves at N = 30 take about as long as 300.
    #[arg(long, value_name = "K", default_value_t = GifOptions::default().max_frames, requires = "gif")]
    pub gif_frames: usize,
    /// Cell side in the GIF, in pixels (4..=64; default: about 600 px of board, 4 to 32 px).
    #[arg(long, value_name = "PX", requires = "gif")]
    pub gif_cell: Option<u32>,
}

/// Refuses a page or GIF that is one of the files `tester vis` reads (the answers, the input
/// file, the `SEED.in` beside an answer of a pair).
fn refuse_overwriting_inputs(args: &Args) -> Result<(), String> {
    let mut inputs = Inputs::new();
    inputs.add(&args.case.output, "the answer");
    if let Some(input) = &args.case.input {
        inputs.add(input, "the input");
    }
    if let Some(second) = &args.second {
        inputs.add(second, "the answer");
        for answer in [&args.case.output, second] {
            inputs.add(&answer.with_extension("in"), "the case file");
        }
    }
    for (flag, path) in [("-o", &args.page), ("--gif", &args.gif)] {
        if let Some(path) = path {
            inputs.check_output(flag, path)?;
        }
    }
    Ok(())
}

/// The locks of the run folders the page and the GIF go into (see
/// [`crate::cli::lock::lock_if_present`]): a folder that a run is writing is refused.
fn lock_output_folders(args: &Args) -> Result<Vec<crate::cli::lock::FolderLock>, String> {
    use crate::cli::lock::{folder_of, lock_each_present};
    let files = [&args.page, &args.gif].into_iter().flatten();
    lock_each_present(files.map(|p| folder_of(p)), "tester vis")
}

/// Runs `tester vis`; returns the exit code (see [`EXIT_HELP`]).
pub fn run(args: &Args) -> Result<i32, String> {
    refuse_overwriting_inputs(args)?;
    let _locks = lock_output_folders(args)?;
    let output = read_text(&args.case.output)?;
    let (input, input_text, seed, p, title) = match (&args.case.input, args.case.seed) {
        (Some(path), _) => {
            let text = read_input_text(path)?;
            let input = Input::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let title = format!("{} + {}", path.display(), args.case.output.display());
            (input, text, None, None, title)
        }
        (None, Some(seed)) => {
            let case = generate(seed, &args.case.ranges.ranges());
            let title = format!("seed {seed} + {}", args.case.output.display());
            let text = case.input.to_string();
            (case.input, text, Some(seed), Some(case.p), title)
        }
        (None, None) => return Err("give --seed or --input".into()),
    };
    if let Some(second) = &args.second {
        let Some(page) = &args.page else {
            return Err("two outputs make a page: give -o PAGE.html".into());
        };
        let data = PairData {
            input: input_text,
            answers: [
                answer(&args.case.output, output, &input)?,
                answer(second, read_text(second)?, &input)?,
            ],
            seed,
            p,
            title: title_of_pair(seed, &args.case, second),
        };
        let invalid = write_pair_page(page, &data, &input)?;
        return Ok(i32::from(invalid));
    }
    // The GIF replays the output with the judge: its verdict serves when there is no page.
    let gif_invalid = match &args.gif {
        Some(path) => Some(write_gif(args, path, &input, &output, seed)?),
        None => None,
    };
    let Some(page) = &args.page else {
        let invalid = gif_invalid.unwrap_or_else(|| judge(&input, &output).fatal.is_some());
        return Ok(i32::from(invalid));
    };
    let verdict = judge(&input, &output);
    let code = i32::from(verdict.fatal.is_some());
    let size = output.len();
    let output = Some(output);
    write_page(
        page,
        &PageData {
            input: input_text,
            output,
            seed,
            p,
            title,
        },
    )?;
    let result = match verdict.error() {
        Some(message) => format!("invalid output: {message}"),
        None => format!("{} moves, score {}", verdict.moves, verdict.score),
    };
    crate::diag!("tester vis: wrote {} ({result})", page.display());
    if size > PAGE_OUTPUT_MAX {
        crate::diag!(
            "tester vis: the output has {size} bytes, more than a page replays \
             ({PAGE_OUTPUT_MAX}): the page keeps the lines the judge reads, or if even those \
             are more, the board and the judge's verdict only"
        );
    }
    Ok(code)
}

/// Answer `output` read from `path`, refused when a `SEED.in` beside it (a run folder's) is
/// another case than `input`: its moves were made for another board.
fn answer(path: &Path, output: String, input: &Input) -> Result<Answer, String> {
    let beside = path.with_extension("in");
    if path.extension().is_some_and(|e| e == "out") && beside.is_file() {
        let text = read_input_text(&beside)?;
        if Input::parse(&text).ok().as_ref() != Some(input) {
            return Err(format!(
                "{} answers another input: {} is not the case shown (another seed or \
                 --n/--c/--p?); give the two outputs of one case",
                path.display(),
                beside.display()
            ));
        }
    }
    Ok(Answer {
        name: path.display().to_string(),
        output,
    })
}

/// The title of a pair page: the case and the two outputs.
fn title_of_pair(seed: Option<u64>, case: &CaseArgs, second: &Path) -> String {
    let what = match (seed, &case.input) {
        (Some(seed), _) => format!("seed {seed}"),
        (None, Some(path)) => path.display().to_string(),
        (None, None) => String::new(),
    };
    format!(
        "{what}: A {} vs B {}",
        case.output.display(),
        second.display()
    )
}

/// Writes the pair page and says what the judge thinks of each answer; returns whether one
/// of them is invalid.
pub fn write_pair_page(page: &Path, data: &PairData, input: &Input) -> Result<bool, String> {
    crate::cli::replace::write_output(page, render_pair_page(data).as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", page.display()))?;
    let mut invalid = false;
    let said: Vec<String> = ["A", "B"]
        .iter()
        .zip(&data.answers)
        .map(|(label, a)| {
            let verdict = judge(input, &a.output);
            invalid |= verdict.fatal.is_some();
            match verdict.error() {
                Some(message) => format!("{label}: invalid output (rejected): {message}"),
                None => format!("{label}: {} moves, score {}", verdict.moves, verdict.score),
            }
        })
        .collect();
    crate::diag!("tester vis: wrote {} ({})", page.display(), said.join("; "));
    Ok(invalid)
}

/// Writes the GIF of `output` on `input` to `path` (`tester vis --gif`) and says what is in it;
/// whether the judge found the output invalid (the GIF stops at its fatal move).
fn write_gif(
    args: &Args,
    path: &Path,
    input: &Input,
    output: &str,
    seed: Option<u64>,
) -> Result<bool, String> {
    let opts = GifOptions {
        cell: args.gif_cell,
        delay_ms: args.gif_delay,
        max_frames: args.gif_frames,
    };
    let title = match seed {
        Some(seed) => format!("seed {seed}"),
        None => args
            .case
            .input
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    };
    // Options first: a bad one must leave an existing file as it was.
    checked_cell(input.n, &opts).map_err(|e| format!("--gif: {e}"))?;
    let cannot = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    // A file (or a symbolic link) is replaced once the GIF is whole; a device or a pipe
    // (`/dev/stdout`) takes the frames as they come.
    let file = open_output(path).map_err(|e| cannot(&e))?;
    // Frames go to the file as they are drawn: memory does not grow with their number.
    let mut sink = Counted {
        inner: BufWriter::new(file),
        bytes: 0,
    };
    let written = stream_gif(&mut sink, input, output, &title, &opts).and_then(|gif| {
        let file = sink.inner.into_inner().map_err(|e| cannot(e.error()))?;
        file.finish().map(|()| gif).map_err(|e| cannot(&e))
    });
    // On an error the half-written GIF (a temporary file) is dropped: an existing file at
    // `path` stays as it was, and a device is left alone.
    let gif = written.map_err(|e| format!("--gif: {e}"))?;
    let bytes = sink.bytes;
    let sampled = if gif.sampled { ", sampled evenly" } else { "" };
    let result = match &gif.fatal {
        Some(fatal) => format!(
            "invalid output, stops after move {}: {}",
            gif.moves, fatal.message
        ),
        None => format!("{} moves", gif.moves),
    };
    crate::diag!(
        "tester vis: wrote {} ({} frames{sampled}, {}×{} px, {} bytes; {result})",
        path.display(),
        gif.frames,
        gif.width,
        gif.height,
        bytes
    );
    Ok(gif.fatal.is_some())
}

/// A writer that counts the bytes written through it (the GIF's size, for the summary line,
/// also when the GIF goes to a pipe).
struct Counted<W: Write> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
