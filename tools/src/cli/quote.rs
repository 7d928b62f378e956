//! Text from files and command lines (comments, commands, folder names in a `results.json`),
//! made safe to print on a terminal: control characters are escaped, so a comment holding
//! `ESC [ 2 J` cannot clear the screen or fake a line.

/// `text` with every control character (C0, DEL, C1) and every bidirectional-text control
/// (U+200E-200F, U+202A-202E, U+2066-2069) written as an escape (`\x1b`, `\n`, `\u{202e}`),
/// and cut to `max_chars` characters with `…` when longer.
///
/// # Examples
///
/// ```
/// use tools::cli::quote::printable;
///
/// assert_eq!(printable("a\x1b[2Jb\n", 80), "a\\x1b[2Jb\\n");
/// assert_eq!(printable("naïve", 80), "naïve");
/// assert_eq!(printable("abcdef", 3), "abc…");
/// ```
///
/// # Complexity
///
/// Linear in the length of `text` up to `max_chars`.
pub fn printable(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(4 * max_chars));
    for (i, ch) in text.chars().enumerate() {
        if i == max_chars {
            out.push('…');
            break;
        }
        match ch {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() || is_bidi_control(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// [`printable`] of a message of several lines: each line escaped, the line breaks kept.
pub fn printable_lines(text: &str, max_chars: usize) -> String {
    text.split('\n')
        .map(|line| printable(line, max_chars))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prints `PROGRAM: warning: MESSAGE` on standard error, the message escaped by
/// [`printable_lines`]; a standard error that is gone is ignored (a warning never ends a run).
pub fn warn(program: &str, message: &str) {
    crate::diag!("{program}: warning: {}", printable_lines(message, 4000));
}

/// `n` and `noun`, the noun in the plural unless `n` is 1: `1 seed`, `2 seeds`, `0 jobs`.
///
/// # Examples
///
/// ```
/// use tools::cli::quote::count;
///
/// assert_eq!(count(1, "seed"), "1 seed");
/// assert_eq!(count(3, "job"), "3 jobs");
/// ```
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Characters that reorder the text around them on screen.
fn is_bidi_control(c: char) -> bool {
    matches!(c as u32, 0x200E..=0x200F | 0x202A..=0x202E | 0x2066..=0x2069)
}

/// `text` quoted for `sh` (in single quotes).
pub fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `path` as one `sh` word: as it is when it needs no quotes, else quoted ([`sh_quote`]).
pub fn shell_word(path: &std::path::Path) -> String {
    let text = path.to_string_lossy();
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if plain && !text.is_empty() {
        text.into_owned()
    } else {
        sh_quote(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_text_kept() {
        assert_eq!(
            printable("\u{7f}\u{9b}\u{202e}x\t", 80),
            "\\x7f\\u{9b}\\u{202e}x\\t"
        );
        assert_eq!(printable("", 5), "");
        assert_eq!(printable("abc", 3), "abc");
        assert_eq!(printable_lines("a\x1b\nb", 80), "a\\x1b\nb");
    }
}
