//! Why a `--param` override was refused ([`ParamError`]).

use std::fmt;

/// Why a `--param` override was refused.
#[derive(Clone, Debug, PartialEq)]
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
    /// A compute share whose run, with the polish and the post-optimiser after it, would end
    /// past [`RUN_END_MAX`](crate::solver::RUN_END_MAX) of the time limit.
    EndsLate {
        /// The compute share.
        name: &'static str,
        /// Where its run would end, as a share of the time limit.
        end: f64,
        /// The largest value it may have with the other parameters as they are.
        most: f64,
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
            ParamError::EndsLate { name, end, most } => write!(
                f,
                "--param: with this {name} a run would end at {:.1} % of the time limit \
                 ({name} × (1 + polish_share + improve_share)), past the {:.0} % that keeps \
                 the answer within 95 %: {name} may be at most {most:.4}",
                end * 100.0,
                super::RUN_END_MAX * 100.0
            ),
        }
    }
}

impl std::error::Error for ParamError {}
