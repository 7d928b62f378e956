//! Pages of two answers to one input, side by side (`visualizer/pair.html`): written by
//! `tester vis --seed S A.out B.out -o P.html` and `tester compare --vis`.
//!
//! # Example
//!
//! ```
//! use tools::vis::pair::{render_pair_page, Answer, PairData};
//!
//! let input = "8\n1\n".to_string() + &"0\n".repeat(64);
//! let answer = |name: &str| Answer { name: name.into(), output: "0\n".into() };
//! let page = render_pair_page(&PairData {
//!     input,
//!     answers: [answer("a.out"), answer("b.out")],
//!     seed: Some(7),
//!     p: None,
//!     title: "seed 7".into(),
//! });
//! assert!(page.contains(r#"id="qa-data""#) && page.contains("two answers"));
//! ```

use super::{fill_template, page_output, verdict_of};
use crate::input::Input;

const PAIR_HTML: &str = include_str!("../../../visualizer/pair.html");

/// The pair page's scripts, in the order `visualizer/pair.html` loads them.
const PAIR_SCRIPTS: [(&str, &str); 3] = [
    ("judge.js", include_str!("../../../visualizer/judge.js")),
    ("draw.js", include_str!("../../../visualizer/draw.js")),
    ("pair.js", include_str!("../../../visualizer/pair.js")),
];

/// One answer of a pair page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    /// What the page calls it (a file name, a run folder).
    pub name: String,
    /// The whole output text; the page inlines at most [`super::PAGE_OUTPUT_MAX`] bytes of it,
    /// as [`super::render_page`] does.
    pub output: String,
}

/// What a pair page shows: one input and two answers to it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairData {
    /// The input text (N, C, then N*N cells).
    pub input: String,
    /// Answers `A` and `B`.
    pub answers: [Answer; 2],
    /// The seed of the case, if known.
    pub seed: Option<u64>,
    /// The wall probability P the generator drew, if known.
    pub p: Option<f64>,
    /// A title for the page header and the browser tab (plain text; it is escaped).
    pub title: String,
}

/// Builds the self-contained page of two answers, with the judge's verdict on each (the page
/// checks its own replay against them). Every `<`, `>` and `&` of the data is a `\u` escape,
/// as in [`super::render_page`].
///
/// # Complexity
///
/// Linear in the size of the input, the two outputs and the page assets.
pub fn render_pair_page(data: &PairData) -> String {
    let parsed = Input::parse(&data.input).ok();
    let n = parsed.as_ref().map_or(0, |i| i.n);
    let answers: Vec<serde_json::Value> = data
        .answers
        .iter()
        .map(|a| {
            let mut json = serde_json::Map::new();
            json.insert("name".into(), a.name.clone().into());
            let shown = page_output(&a.output, n);
            if let Some(text) = shown {
                json.insert("output".into(), text.into());
            }
            if shown.map_or(0, str::len) < a.output.len() {
                json.insert(
                    "output_cut".into(),
                    serde_json::json!({"bytes": a.output.len(), "kept": shown.map_or(0, str::len)}),
                );
            }
            if let Some(input) = &parsed {
                json.insert("verdict".into(), verdict_of(input, &a.output));
            }
            serde_json::Value::Object(json)
        })
        .collect();
    let mut json = serde_json::json!({
        "input": data.input,
        "title": data.title,
        "answers": answers,
    });
    if let Some(seed) = data.seed {
        json["seed"] = seed.into();
    }
    if let Some(p) = data.p.and_then(serde_json::Number::from_f64) {
        json["p"] = serde_json::Value::Number(p);
    }
    fill_template(
        PAIR_HTML,
        "QueenAttack: two answers",
        &data.title,
        &json,
        &PAIR_SCRIPTS,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> PairData {
        // One colour, eight queens that attack no one: rows 0-7 in columns 0 4 7 5 2 6 1 3.
        let mut input = "8\n1\n".to_string();
        for col in [0, 4, 7, 5, 2, 6, 1, 3] {
            for c in 0..8 {
                input.push_str(if c == col { "1\n" } else { "0\n" });
            }
        }
        PairData {
            input,
            answers: [
                Answer {
                    name: "a.out".into(),
                    output: "0\n".into(),
                },
                Answer {
                    name: "</script><b>".into(),
                    output: "1\n0 0 1 1\n".into(),
                },
            ],
            seed: Some(3),
            p: Some(0.5),
            title: "<i>t</i>".into(),
        }
    }

    fn embedded(page: &str) -> serde_json::Value {
        let open = r#"<script type="application/json" id="qa-data">"#;
        let start = page.find(open).expect("data element") + open.len();
        let end = start + page[start..].find("</script>").expect("end of data");
        serde_json::from_str(&page[start..end]).expect("valid JSON")
    }

    #[test]
    fn the_page_loads_exactly_its_scripts_inlined() {
        let loaded: Vec<&str> = PAIR_HTML
            .split(r#"<script src=""#)
            .skip(1)
            .map(|rest| &rest[..rest.find('"').expect("closing quote")])
            .collect();
        let inlined: Vec<&str> = PAIR_SCRIPTS.iter().map(|(name, _)| *name).collect();
        assert_eq!(loaded, inlined);
        let page = render_pair_page(&data());
        assert!(!page.contains("src=\"") && !page.contains("href=\""));
        for (name, text) in PAIR_SCRIPTS {
            assert!(page.contains(text), "{name} inlined");
            assert!(!text.to_ascii_lowercase().contains("</script"), "{name}");
        }
    }

    #[test]
    fn both_answers_travel_with_their_verdicts_and_stay_data() {
        let page = render_pair_page(&data());
        assert_eq!(page.matches("<script").count(), 1 + PAIR_SCRIPTS.len());
        assert!(page.contains("<title>&lt;i&gt;t&lt;/i&gt; · QueenAttack: two answers</title>"));
        let v = embedded(&page);
        assert_eq!(v["seed"], 3);
        assert_eq!(v["answers"][0]["name"], "a.out");
        assert_eq!(v["answers"][1]["name"], "</script><b>");
        // A: no move, no pair. B: (0,0) -> (1,1) meets (1,4) on row 1 and (6,1) on column 1:
        // 2 pairs × N = 8, plus the penalty √1.
        assert_eq!(v["answers"][0]["verdict"]["score"], 0.0);
        assert_eq!(v["answers"][1]["verdict"]["score"], 17.0);
        assert_eq!(v["answers"][1]["output"], "1\n0 0 1 1\n");
    }
}
