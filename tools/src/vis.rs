//! Self-contained visualizer pages.
//!
//! The web visualizer lives in `visualizer/` (HTML, CSS and JavaScript, no build step). This
//! module builds **one** HTML file from it with the style sheet, the scripts and the data (an
//! input, an output and what is known about the test case) inlined, so the page can be shared
//! and opened offline. The page replays the moves itself with the same rules as the judge; the
//! judge's verdict travels with the data, and the page says so if its own replay disagrees.
//!
//! # Example
//!
//! ```
//! use tools::vis::{render_page, PageData};
//!
//! let input = "8\n1\n".to_string() + &"0\n".repeat(64);
//! let page = render_page(&PageData {
//!     input,
//!     output: Some("0\n".into()),
//!     seed: Some(7),
//!     p: None,
//!     title: "seed 7".into(),
//! });
//! assert!(page.starts_with("<!DOCTYPE html>"));
//! assert!(page.contains(r#"id="qa-data""#));
//! ```

pub mod pair;

use crate::input::Input;
use crate::judge::judge;

const INDEX_HTML: &str = include_str!("../../visualizer/index.html");
const STYLE_CSS: &str = include_str!("../../visualizer/style.css");

/// The page's scripts, in the order `visualizer/index.html` loads them (each one uses those
/// before it): [`render_page`] replaces each `<script src="NAME">` tag by the file's text.
const SCRIPTS: [(&str, &str); 5] = [
    ("judge.js", include_str!("../../visualizer/judge.js")),
    ("draw.js", include_str!("../../visualizer/draw.js")),
    ("files.js", include_str!("../../visualizer/files.js")),
    ("app.js", include_str!("../../visualizer/app.js")),
    ("record.js", include_str!("../../visualizer/record.js")),
];

/// The tags of `visualizer/index.html` that [`render_page`] replaces by inlined content.
const STYLE_TAG: &str = r#"<link rel="stylesheet" href="style.css">"#;
const DATA_MARKER: &str = "<!-- qa-data: tester vis embeds the input and output here -->";

/// The largest output a page inlines (16 MiB; the longest contest answer, 54 000 moves at
/// N = 30, is about 1 MB). A browser cannot replay much more, and the page would cost several
/// times its size to build. A larger output is cut to the part the judge reads (the count line
/// and the lines it counts; the official judge ignores the rest); when even that is larger, the
/// page shows the board and the judge's verdict, without the moves.
pub const PAGE_OUTPUT_MAX: usize = 16 << 20;

/// What one page shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageData {
    /// The input text (N, C, then N*N cells), as the solver read it.
    pub input: String,
    /// The whole output text of the solver, or `None` to show only the starting board. The
    /// verdict is the judge's on all of it; the page inlines at most [`PAGE_OUTPUT_MAX`] bytes
    /// of it (see there).
    pub output: Option<String>,
    /// The seed of the test case, if known (shown in the panel and in export names).
    pub seed: Option<u64>,
    /// The wall probability P the generator drew, if known.
    pub p: Option<f64>,
    /// A title for the page header and the browser tab (plain text; it is escaped).
    pub title: String,
}

/// Builds the self-contained HTML page for `data`.
///
/// The data travels as a JSON object in a `<script type="application/json">` element; every
/// `<`, `>` and `&` in it is written as a `\u` escape, so no text of an input or output (say
/// `</script>`) can end the element early or inject markup.
///
/// # Complexity
///
/// Linear in the size of the input, the output and the page assets (about 70 KB).
pub fn render_page(data: &PageData) -> String {
    let mut json = serde_json::Map::new();
    json.insert("input".into(), data.input.clone().into());
    if let Some(out) = &data.output {
        let n = Input::parse(&data.input).map_or(0, |i| i.n);
        let shown = page_output(out, n);
        if let Some(text) = shown {
            json.insert("output".into(), text.into());
        }
        if shown.map_or(0, str::len) < out.len() {
            json.insert(
                "output_cut".into(),
                serde_json::json!({"bytes": out.len(), "kept": shown.map_or(0, str::len)}),
            );
        }
    }
    if let Some(seed) = data.seed {
        json.insert("seed".into(), seed.into());
    }
    if let Some(p) = data.p.and_then(serde_json::Number::from_f64) {
        json.insert("p".into(), serde_json::Value::Number(p));
    }
    json.insert("title".into(), data.title.clone().into());
    if let Some(verdict) = verdict(data) {
        json.insert("verdict".into(), verdict);
    }
    let json = serde_json::Value::Object(json);
    fill_template(
        INDEX_HTML,
        "QueenAttack visualizer",
        &data.title,
        &json,
        &SCRIPTS,
    )
}

/// A page template (`index.html` or `pair.html`) with its title (`base`, after `title` if
/// any), style sheet, scripts and data (`json`, made safe for a `<script>` element) inlined.
fn fill_template(
    html: &str,
    base: &str,
    title: &str,
    json: &serde_json::Value,
    scripts: &[(&str, &str)],
) -> String {
    let json = script_safe_json(&json.to_string());
    let full = if title.is_empty() {
        base.to_string()
    } else {
        format!("{} · {base}", escape_html(title))
    };
    let page = html
        .replacen(
            &format!("<title>{base}</title>"),
            &format!("<title>{full}</title>"),
            1,
        )
        .replacen(STYLE_TAG, &format!("<style>\n{STYLE_CSS}</style>"), 1)
        .replacen(
            DATA_MARKER,
            &format!(r#"<script type="application/json" id="qa-data">{json}</script>"#),
            1,
        );
    scripts.iter().fold(page, |page, (name, text)| {
        page.replacen(&script_tag(name), &format!("<script>\n{text}</script>"), 1)
    })
}

/// What of `output` a page inlines: all of it up to [`PAGE_OUTPUT_MAX`] bytes, else the part
/// the judge reads if that fits, else nothing.
fn page_output(output: &str, n: usize) -> Option<&str> {
    if output.len() <= PAGE_OUTPUT_MAX {
        return Some(output);
    }
    let part = judged_part(output, n);
    (part.len() <= PAGE_OUTPUT_MAX).then_some(part)
}

/// The start of `output` the judge reads: the count line and the lines it counts, with their
/// line terminators (only the count line when it is not a valid count). The judge's verdict on
/// it is its verdict on the whole output.
///
/// # Complexity
///
/// Linear in the length of the part.
fn judged_part(output: &str, n: usize) -> &str {
    let mut lines = crate::java::lines(output);
    let Some(first) = lines.next() else {
        return output;
    };
    let limit = 2 * (n as i64).pow(3);
    let count = crate::java::parse_int(first)
        .filter(|&c| c >= 0 && i64::from(c) <= limit)
        .unwrap_or(0) as usize;
    let last = lines.take(count).last().unwrap_or(first);
    // `last` is a slice of `output`: its end is an offset into it.
    let end = last.as_ptr() as usize - output.as_ptr() as usize + last.len();
    let rest = &output[end..];
    let terminator = if rest.starts_with("\r\n") {
        2
    } else {
        usize::from(rest.starts_with(['\n', '\r']))
    };
    &output[..end + terminator]
}

/// The tag by which `visualizer/index.html` loads the script file `name`.
fn script_tag(name: &str) -> String {
    format!(r#"<script src="{name}"></script>"#)
}

/// The judge's verdict on the page's output, for the page to show and to check its own replay
/// against: `score`, `error` (null or the message), `moves` and `report` (what `tester score`
/// prints). `None` without an output or when the input does not parse.
fn verdict(data: &PageData) -> Option<serde_json::Value> {
    let input = Input::parse(&data.input).ok()?;
    Some(verdict_of(&input, data.output.as_deref()?))
}

/// The judge's verdict on `output` for `input`, as a page carries it (see [`verdict`]).
fn verdict_of(input: &Input, output: &str) -> serde_json::Value {
    let judgement = judge(input, output);
    serde_json::json!({
        "score": judgement.score,
        "error": judgement.error(),
        "moves": judgement.moves,
        "report": judgement.report().trim_end(),
    })
}

/// Rewrites `<`, `>`, `&` and the JavaScript line separators of a JSON text as `\u` escapes.
///
/// In a JSON text these characters can only occur inside strings, where the escapes mean the
/// same characters, so the value is unchanged but the text can sit in a `<script>` element.
fn script_safe_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    for ch in json.chars() {
        match ch {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            _ => out.push(ch),
        }
    }
    out
}

/// Escapes text for an HTML text node.
pub(crate) fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eight_queens() -> String {
        let cols = [0, 4, 7, 5, 2, 6, 1, 3];
        let mut text = "8\n1\n".to_string();
        for col in cols {
            for c in 0..8 {
                text.push_str(if c == col { "1\n" } else { "0\n" });
            }
        }
        text
    }

    fn sample() -> PageData {
        PageData {
            // One colour, eight queens: rows 0-7 in columns 0 4 7 5 2 6 1 3 (no pair attacks).
            input: eight_queens(),
            output: Some("1\n0 0 1 1\n".into()),
            seed: Some(2),
            p: Some(0.25),
            title: "seed 2".into(),
        }
    }

    /// The JSON text inside the data element of a page.
    fn embedded_json(page: &str) -> serde_json::Value {
        let open = r#"<script type="application/json" id="qa-data">"#;
        let start = page.find(open).expect("data element") + open.len();
        let end = start + page[start..].find("</script>").expect("end of data");
        serde_json::from_str(&page[start..end]).expect("valid JSON")
    }

    #[test]
    fn every_template_tag_is_present_once() {
        for tag in [STYLE_TAG, DATA_MARKER] {
            assert_eq!(INDEX_HTML.matches(tag).count(), 1, "{tag}");
        }
        for (name, _) in SCRIPTS {
            assert_eq!(INDEX_HTML.matches(&script_tag(name)).count(), 1, "{name}");
        }
    }

    /// A script added to `index.html` but not to [`SCRIPTS`] would be missing from the pages.
    #[test]
    fn index_loads_exactly_the_inlined_scripts_in_order() {
        let loaded: Vec<&str> = INDEX_HTML
            .split(r#"<script src=""#)
            .skip(1)
            .map(|rest| &rest[..rest.find('"').expect("closing quote")])
            .collect();
        let inlined: Vec<&str> = SCRIPTS.iter().map(|(name, _)| *name).collect();
        assert_eq!(loaded, inlined);
    }

    #[test]
    fn assets_cannot_close_their_elements() {
        for (name, text) in [("style.css", STYLE_CSS)].into_iter().chain(SCRIPTS) {
            let lower = text.to_ascii_lowercase();
            assert!(!lower.contains("</script"), "{name}");
            assert!(!lower.contains("</style"), "{name}");
            assert!(!lower.contains("<!--"), "{name}");
        }
    }

    #[test]
    fn page_is_self_contained() {
        let page = render_page(&sample());
        assert!(!page.contains(STYLE_TAG));
        assert!(!page.contains("src=\""), "no external script");
        assert!(!page.contains("href=\""), "no external style sheet");
        assert!(page.contains(STYLE_CSS));
        // Every script is inlined, in the order index.html loads them, after the data they read.
        let mut at = page.find("id=\"qa-data\"").unwrap();
        for (name, text) in SCRIPTS {
            let found = page[at..]
                .find(text)
                .unwrap_or_else(|| panic!("{name} inlined"));
            at += found + text.len();
        }
    }

    #[test]
    fn data_round_trips() {
        let d = sample();
        let v = embedded_json(&render_page(&d));
        assert_eq!(v["input"], d.input.as_str());
        assert_eq!(v["output"], "1\n0 0 1 1\n");
        assert_eq!(v["seed"], 2);
        assert_eq!(v["p"], 0.25);
        assert_eq!(v["title"], "seed 2");
        // (0,0) -> (1,1): row 1 with (1,4) and column 1 with (6,1), 2 pairs × N = 8, plus
        // the penalty sqrt(1).
        assert_eq!(v["verdict"]["score"], 17.0);
        assert_eq!(v["verdict"]["error"], serde_json::Value::Null);
        assert_eq!(v["verdict"]["report"], "Score = 17.0");
    }

    #[test]
    fn verdict_of_an_invalid_output() {
        let mut d = sample();
        d.output = Some("1\n0 0 0 0\n".into());
        let v = embedded_json(&render_page(&d));
        assert_eq!(v["verdict"]["score"], -1.0);
        assert_eq!(
            v["verdict"]["error"],
            "Start and end locations cannot be the same: 0 0 0 0"
        );
    }

    #[test]
    fn hostile_output_stays_data() {
        let mut d = sample();
        let evil = "1\n</script><script>alert(1)</script> <!-- & \u{2028}\r\n";
        d.output = Some(evil.into());
        d.title = "<b>x</b> & y".into();
        let page = render_page(&d);
        // Exactly the template's scripts: the output opened none.
        assert_eq!(page.matches("<script").count(), 1 + SCRIPTS.len());
        assert_eq!(page.matches("</script>").count(), 1 + SCRIPTS.len());
        assert!(!page.contains("<b>x</b>"));
        assert!(
            page.contains("<title>&lt;b&gt;x&lt;/b&gt; &amp; y · QueenAttack visualizer</title>")
        );
        let v = embedded_json(&page);
        assert_eq!(v["output"], evil);
        assert_eq!(v["title"], "<b>x</b> & y");
    }

    #[test]
    fn judged_part_is_what_the_judge_reads() {
        assert_eq!(judged_part("2\r\na\nb\rc\nd", 8), "2\r\na\nb\r");
        assert_eq!(judged_part("1\n0 0 1 1", 8), "1\n0 0 1 1");
        assert_eq!(judged_part("x\n1 2 3 4\n", 8), "x\n");
        assert_eq!(judged_part("5\n1\n", 8), "5\n1\n");
        assert_eq!(judged_part("", 8), "");
        // Over the limit of 2·N³ moves: the judge reads the count line only.
        assert_eq!(judged_part("1025\na\n", 8), "1025\n");
    }

    #[test]
    fn a_huge_output_keeps_the_judges_verdict() {
        let mut d = sample();
        let junk = "z".repeat(PAGE_OUTPUT_MAX);
        d.output = Some(format!("1\n0 0 1 1\n{junk}\n"));
        let v = embedded_json(&render_page(&d));
        assert_eq!(v["output"], "1\n0 0 1 1\n");
        assert_eq!(v["verdict"]["score"], 17.0);
        assert_eq!(v["output_cut"]["kept"], 10);
        // A counted part larger than a page carries: no moves, the verdict still there.
        d.output = Some(format!("1\n{junk}\n"));
        let v = embedded_json(&render_page(&d));
        assert!(v.get("output").is_none());
        assert_eq!(v["output_cut"]["kept"], 0);
        assert_eq!(v["verdict"]["score"], -1.0);
    }

    #[test]
    fn missing_fields_are_left_out() {
        let d = PageData {
            input: "8\n1\n".into(),
            ..PageData::default()
        };
        let v = embedded_json(&render_page(&d));
        assert!(v.get("output").is_none());
        assert!(v.get("seed").is_none());
        assert!(v.get("p").is_none());
        assert!(v.get("verdict").is_none());
        assert_eq!(v["input"], "8\n1\n");
    }
}
