//! Writes a self-contained visualizer page: `vis_page INPUT OUTPUT PAGE.html [SEED]`.
//! (A stand-in for `tester vis` while the tester CLI is being written.)
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: vis_page INPUT OUTPUT PAGE.html [SEED]");
        return ExitCode::from(2);
    }
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
    let (input, output) = match (read(&args[0]), read(&args[1])) {
        (Ok(i), Ok(o)) => (i, o),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("vis_page: {e}");
            return ExitCode::FAILURE;
        }
    };
    let seed = args.get(3).and_then(|s| s.parse().ok());
    let page = tools::vis::render_page(&tools::vis::PageData {
        input,
        output: Some(output),
        seed,
        p: None,
        title: format!("{} + {}", args[0], args[1]),
    });
    if let Err(e) = std::fs::write(&args[2], page) {
        eprintln!("vis_page: {}: {e}", args[2]);
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
