//! Why a `--param` override was refused ([`ParamError`]).

use std::fmt;

/// Why a `--param` override was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    /// No `=` between name and value.
    NoEquals(String),
    /// No parameter has this name.
    Unknown(String),
    /// The value does not parse as the parameter's type.
    BadValue {
        /// The parameter.
        name: &'static str,
        /// The value as given.
        value: String,
        /// The type expected (`f64`, `usize`).
        kind: &'static str,
    },
    /// The value parses but lies outside the parameter's range.
    OutOfRange {
        /// The parameter.
        name: &'static str,
        /// The value as given.
        value: String,
        /// The range allowed, as text.
        range: String,
    },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::solver::board::quote;
        match self {
            ParamError::NoEquals(text) => {
                write!(f, "--param {} is not NAME=VALUE", quote(text))
            }
            ParamError::Unknown(name) => write!(
                f,
                "--param: no parameter is called {} (queenattack --list-params lists them)",
                quote(name)
            ),
            ParamError::BadValue { name, value, kind } => {
                write!(f, "--param {name}={}: not a valid {kind}", quote(value))
            }
            ParamError::OutOfRange { name, value, range } => {
                write!(f, "--param {name}={}: outside {range}", quote(value))
            }
        }
    }
}

impl std::error::Error for ParamError {}
