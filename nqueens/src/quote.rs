//! Quoting a piece of the input in a message: escaped, so that a terminal never receives the
//! input's control bytes (an escape sequence in a bad token must not recolour or clear the
//! screen), and short, so that a 10 MB token gives a one-line message.

/// Most escaped bytes of a token a message shows (the solver's `quote` shows as many).
pub const QUOTE_BYTES: usize = 80;

/// `token` for a message: in double quotes, each byte outside printable ASCII escaped (`\n`,
/// `\t`, `\x1b`, …, as [`std::ascii::escape_default`]), cut after [`QUOTE_BYTES`] bytes of
/// escaped text, and then followed by `…` and the token's full length.
///
/// # Complexity
/// O(min(len, [`QUOTE_BYTES`])): only the bytes shown are looked at.
///
/// # Examples
/// ```
/// use nqueens::quote::quote;
/// assert_eq!(quote(b"x"), "\"x\"");
/// assert_eq!(quote(b"\x1b[31mX"), "\"\\x1b[31mX\"");
/// let long = vec![b'7'; 10_000_000];
/// assert!(quote(&long).len() < 120);
/// assert!(quote(&long).ends_with("… (10000000 bytes)"));
/// ```
pub fn quote(token: &[u8]) -> String {
    let mut out = String::new();
    for &b in token {
        let escaped = std::ascii::escape_default(b);
        if out.len() + escaped.len() > QUOTE_BYTES {
            return format!("\"{out}\"… ({} bytes)", token.len());
        }
        out.extend(escaped.map(char::from));
    }
    format!("\"{out}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_bytes_are_escaped_and_long_tokens_cut() {
        let q = quote(b"\x1b[2J\r\n\x07\xff\"\\");
        assert_eq!(q, r#""\x1b[2J\r\n\x07\xff\"\\""#);
        assert!(q.bytes().all(|b| (0x20..0x7f).contains(&b)));
        // Cut on a whole escape: 20 escapes of 4 bytes fill the 80 bytes exactly.
        let q = quote(&[0u8; 21]);
        assert_eq!(q, format!("\"{}\"… (21 bytes)", "\\x00".repeat(20)));
        assert_eq!(quote(&[b'a'; 80]), format!("\"{}\"", "a".repeat(80)));
        assert_eq!(quote(b""), "\"\"");
    }
}
