//! The official verdict on one output: read it, play it, score it.

use crate::input::Input;
use crate::java::double_to_string;
use crate::output::parse_output;
use crate::replay::{Fatal, Replay};

/// What the judge says about one output.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// The official score: `errors × N + penalty`, or `-1` on a fatal error.
    pub score: f64,
    /// Attacking same-colour pairs on the final board (on a fatal: on the board when it
    /// happened).
    pub errors: u64,
    /// Moves played (on a fatal: the legal moves before it).
    pub moves: usize,
    /// Σ sqrt(max(|dr|, |dc|)) over the moves played.
    pub penalty: f64,
    /// The fatal error, if any.
    pub fatal: Option<Fatal>,
}

impl Judgement {
    /// The official message, if the output failed.
    pub fn error(&self) -> Option<&str> {
        self.fatal.as_ref().map(|f| f.message.as_str())
    }

    /// What the official tester prints: the message line on a fatal, then `Score = X` with `X`
    /// as Java's `Double.toString` writes it. Ends with a newline.
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::input::Input;
    /// use tools::judge::judge;
    ///
    /// let input = Input::new(2, 1, vec![1, 0, 0, 0]).unwrap();
    /// assert_eq!(judge(&input, "0\n").report(), "Score = 0.0\n");
    /// assert_eq!(judge(&input, "1\n0 0 1 1\n").report(), "Score = 1.0\n");
    /// assert_eq!(
    ///     judge(&input, "").report(),
    ///     "Cannot parse your output\nScore = -1.0\n"
    /// );
    /// ```
    pub fn report(&self) -> String {
        let score = format!("Score = {}\n", double_to_string(self.score));
        match self.error() {
            Some(message) => format!("{message}\n{score}"),
            None => score,
        }
    }

    /// The judgement as a JSON object: `score`, `errors`, `moves`, `penalty`, `error` (null or
    /// the message) and `fatal_move` (null or the 0-based index of the failing move).
    ///
    /// On a fatal error `errors`, `moves` and `penalty` are null: the output has no judged
    /// board (they would only describe the board at the moment of the failure), and `score` is
    /// `-1` like the official tester prints.
    pub fn to_json(&self) -> serde_json::Value {
        let judged = self.fatal.is_none();
        serde_json::json!({
            "score": self.score,
            "errors": judged.then_some(self.errors),
            "moves": judged.then_some(self.moves),
            "penalty": judged.then_some(self.penalty),
            "error": self.error(),
            "fatal_move": self.fatal.as_ref().and_then(|f| f.move_index),
        })
    }
}

/// Judges `output` (the solution's standard output as text) on `input` exactly like the
/// official tester.
///
/// Bytes that are not UTF-8 should be replaced before (`String::from_utf8_lossy`), which is what
/// Java's reader does with them too.
///
/// # Examples
///
/// ```
/// use tools::input::Input;
/// use tools::judge::judge;
///
/// // 3×3, one colour, two queens on row 0: one error, score 1 × 3.
/// let input = Input::new(3, 1, vec![1, 0, 1, 0, 0, 0, 0, 0, 0]).unwrap();
/// assert_eq!(judge(&input, "0").score, 3.0);
/// // Two rows down would land on the other queen's diagonal: one error left, plus sqrt(2).
/// let j = judge(&input, "1\r\n0 2 2 2\r\n");
/// assert_eq!((j.errors, j.moves, j.score), (1, 1, 3.0 + 2f64.sqrt()));
/// // One row down: no error left, cost 1.
/// assert_eq!(judge(&input, "1\n0 2 1 2\n").score, 1.0);
/// // Onto the other queen: a fatal error.
/// let j = judge(&input, "1\n0 0 0 2\n");
/// assert_eq!(j.error(), Some("End location (0,2) must be empty"));
/// assert_eq!(j.score, -1.0);
/// ```
///
/// # Complexity
///
/// `O(N² + length of the output + Σ move lengths)`.
pub fn judge(input: &Input, output: &str) -> Judgement {
    let mut replay = Replay::new(input);
    let parsed = match parse_output(output, input.n) {
        Ok(parsed) => parsed,
        Err(message) => {
            return Judgement {
                score: -1.0,
                errors: replay.errors(),
                moves: 0,
                penalty: 0.0,
                fatal: Some(Fatal {
                    move_index: None,
                    message,
                }),
            }
        }
    };
    let mut failed = false;
    for (mv, line) in parsed.moves.iter().zip(&parsed.lines) {
        if replay.apply_line(*mv, line).is_err() {
            failed = true;
            break;
        }
    }
    if !failed {
        if let Some(bad) = parsed.bad_line {
            replay.fail(bad.message);
        }
    }
    Judgement {
        score: replay.score(),
        errors: replay.errors(),
        moves: replay.moves_applied(),
        penalty: replay.penalty(),
        fatal: replay.fatal().cloned(),
    }
}

/// Only the official score of `output` on `input` (`-1` on a fatal error).
///
/// # Examples
///
/// ```
/// use tools::input::Input;
///
/// let input = Input::parse("2 1  1 0  0 1").unwrap();
/// assert_eq!(tools::judge::score(&input, "0\n"), 2.0); // one diagonal pair × N = 2
/// ```
pub fn score(input: &Input, output: &str) -> f64 {
    judge(input, output).score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn illegal_move_beats_a_later_bad_line() {
        let input = Input::new(2, 1, vec![1, 0, 0, 0]).unwrap();
        let j = judge(&input, "2\n0 0 0 0\nnot a move\n");
        assert_eq!(
            j.error(),
            Some("Start and end locations cannot be the same: 0 0 0 0")
        );
        assert_eq!(j.fatal.unwrap().move_index, Some(0));
        let j = judge(&input, "2\n0 0 0 1\nnot a move\n");
        assert_eq!(
            j.error(),
            Some("Each move must contain exactly 4 numbers separated by a space: not a move")
        );
        assert_eq!(j.moves, 1);
        assert_eq!(j.fatal.unwrap().move_index, Some(1));
    }

    #[test]
    fn json_has_the_fields() {
        let input = Input::new(2, 1, vec![1, 0, 0, 0]).unwrap();
        let v = judge(&input, "1\n0 0 1 1\n").to_json();
        assert_eq!(v["score"], 1.0);
        assert_eq!(v["moves"], 1);
        assert_eq!(v["errors"], 0);
        assert!(v["error"].is_null());
        let v = judge(&input, "x").to_json();
        assert_eq!(v["error"], "Cannot parse your output");
        assert_eq!(v["score"], -1.0);
        for key in ["errors", "moves", "penalty"] {
            assert!(v[key].is_null(), "{key} on a fatal: {v}");
        }
    }
}
