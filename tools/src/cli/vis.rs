//! `tester vis`: one self-contained visualizer page (page and data in one HTML file), and/or
//! the replay as an animated GIF (`--gif`, drawn by [`crate::animation`]).

use std::fs;
use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args as ClapArgs};

use super::args::RangeArgs;
use super::report::SeedResult;
use super::score::{read_input_text, read_text};
use crate::animation::{render_gif, GifOptions};
use crate::gen::generate;
use crate::input::Input;
use crate::judge::judge;
use crate::vis::{render_page, PageData, PAGE_OUTPUT_MAX};

/// Options of `tester vis`.
#[derive(ClapArgs, Debug)]
#[command(group(ArgGroup::new("case").required(true).args(["seed", "input"])))]
#[command(group(ArgGroup::new("target").required(true).multiple(true).args(["page", "gif"])))]
#[command(after_help = super::LIMITS_HELP)]
pub struct Args {
    /// Show the case of this seed (generated like the official tester; the page also shows P).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Show the case in this file (the official input text).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The solution's output to replay; `-` reads standard input. An invalid output plays up to
    /// the failing move, which the page shows with the judge's message.
    #[arg(value_name = "OUTPUT")]
    pub output: PathBuf,
    /// The HTML file to write. It needs nothing else: open it in any browser, offline, or share
    /// it; append `#move=123` or `#move=end` to the address to open that move.
    #[arg(short = 'o', long = "out", value_name = "PAGE")]
    pub page: Option<PathBuf>,
    /// Write the replay as an animated GIF (GIF89a, loops) drawn like the page: board, walls,
    /// queens with their attacker counts, the last move and its queen's path, and the numbers
    /// under the board. More moves than --gif-frames are sampled evenly (first and last board
    /// kept). An invalid output plays up to the failing move, shown in red with the judge's
    /// message. The last frame is held 2 s.
    #[arg(long, value_name = "OUT.gif")]
    pub gif: Option<PathBuf>,
    /// Time per GIF frame, in ms (20..=10000).
    #[arg(long, value_name = "MS", default_value_t = GifOptions::default().delay_ms, requires = "gif")]
    pub gif_delay: u32,
    /// At most this many GIF frames (at least 2); longer replays are sampled evenly.
    #[arg(long, value_name = "K", default_value_t = GifOptions::default().max_frames, requires = "gif")]
    pub gif_frames: usize,
    /// Cell side in the GIF, in pixels (4..=64; default: about 600 px of board, 4 to 32 px).
    #[arg(long, value_name = "PX", requires = "gif")]
    pub gif_cell: Option<u32>,
    /// Parameter overrides (`--n`, `--c`, `--p`) for the case of --seed.
    #[command(flatten)]
    pub ranges: RangeArgs,
}

/// Runs `tester vis`.
pub fn run(args: &Args) -> Result<(), String> {
    let output = read_text(&args.output)?;
    let (input, input_text, seed, p, title) = match (&args.input, args.seed) {
        (Some(path), _) => {
            let text = read_input_text(path)?;
            let input = Input::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let title = format!("{} + {}", path.display(), args.output.display());
            (input, text, None, None, title)
        }
        (None, Some(seed)) => {
            let case = generate(seed, &args.ranges.ranges());
            let title = format!("seed {seed} + {}", args.output.display());
            let text = case.input.to_string();
            (case.input, text, Some(seed), Some(case.p), title)
        }
        (None, None) => return Err("give --seed or --input".into()),
    };
    if let Some(path) = &args.gif {
        write_gif(args, path, &input, &output, seed)?;
    }
    let Some(page) = &args.page else {
        return Ok(());
    };
    let verdict = judge(&input, &output);
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
    eprintln!("tester vis: wrote {} ({result})", page.display());
    if size > PAGE_OUTPUT_MAX {
        eprintln!(
            "tester vis: the output has {size} bytes, more than a page replays \
             ({PAGE_OUTPUT_MAX}): the page keeps the lines the judge reads, or if even those \
             are more, the board and the judge's verdict only"
        );
    }
    Ok(())
}

/// Writes the GIF of `output` on `input` to `path` (`tester vis --gif`) and says what is in it.
fn write_gif(
    args: &Args,
    path: &Path,
    input: &Input,
    output: &str,
    seed: Option<u64>,
) -> Result<(), String> {
    let opts = GifOptions {
        cell: args.gif_cell,
        delay_ms: args.gif_delay,
        max_frames: args.gif_frames,
    };
    let title = match seed {
        Some(seed) => format!("seed {seed}"),
        None => args
            .input
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    };
    let gif = render_gif(input, output, &title, &opts).map_err(|e| format!("--gif: {e}"))?;
    fs::write(path, &gif.bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let sampled = if gif.sampled { ", sampled evenly" } else { "" };
    let result = match &gif.fatal {
        Some(fatal) => format!(
            "invalid output, stops after move {}: {}",
            gif.moves, fatal.message
        ),
        None => format!("{} moves", gif.moves),
    };
    eprintln!(
        "tester vis: wrote {} ({} frames{sampled}, {}×{} px, {} bytes; {result})",
        path.display(),
        gif.frames,
        gif.width,
        gif.height,
        gif.bytes.len()
    );
    Ok(())
}

/// Writes the page for `data` to `path`.
pub fn write_page(path: &Path, data: &PageData) -> Result<(), String> {
    fs::write(path, render_page(data)).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `SEED.html` of a finished seed: whatever the solver printed, even after a timeout or crash,
/// is worth a look (the page inlines at most [`crate::vis::PAGE_OUTPUT_MAX`] bytes of it).
pub fn write_seed_page(
    dir: &Path,
    seed: u64,
    p: Option<f64>,
    input: &crate::input::Input,
    result: &SeedResult,
) -> Result<(), String> {
    let out = dir.join(format!("{seed}.out"));
    // The output is at most the run's output cap (the solver was stopped there).
    let output = fs::read(&out).ok();
    let data = PageData {
        input: input.to_string(),
        output: output.map(|b| String::from_utf8_lossy(&b).into_owned()),
        seed: Some(seed),
        p,
        title: format!("seed {seed}: {} {}", result.status.as_str(), result.score),
    };
    write_page(&dir.join(format!("{seed}.html")), &data)
}
