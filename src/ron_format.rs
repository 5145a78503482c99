//! The RON dialect gaskit reads: one set of parser options for every data
//! file, and RON parse errors turned into located [`Diagnostic`]s.
//!
//! Options: `Option` fields may be written bare (`cap: 0.6` as well as
//! `cap: Some(0.6)`), and newtype enum variants unwrap (`Duration(2.4)`).
//! The parser's recursion limit stays on, so hostile nesting is an error,
//! never a stack overflow.

use ron::extensions::Extensions;
use serde::de::DeserializeOwned;

use crate::diagnostics::Diagnostic;

/// The parser options used for every gaskit RON file.
pub fn options() -> ron::Options {
    ron::Options::default()
        .with_default_extension(Extensions::IMPLICIT_SOME | Extensions::UNWRAP_VARIANT_NEWTYPES)
}

/// Parses `text` (the contents of `file`) as a `T`, reporting a syntax or
/// shape error at its line and column.
pub fn from_str<T: DeserializeOwned>(text: &str, file: &str) -> Result<T, Diagnostic> {
    options().from_str(text).map_err(|error| {
        let start = error.span.start;
        let end = error.span.end;
        let width = if end.line == start.line && end.col > start.col {
            (end.col - start.col) as u32
        } else {
            1
        };
        Diagnostic::error(file, error.code.to_string()).at(
            text,
            start.line.max(1) as u32,
            start.col.max(1) as u32,
            width,
        )
    })
}
