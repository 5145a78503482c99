//! The `.tags` text format: one tag per line.
//!
//! ```text
//! # A full-line comment describes the file and is ignored.
//! Combat.DamageType.Stab   # a trailing comment is kept as the tag's developer comment
//!
//! Status.Dead
//! ```
//!
//! A name is one or more dot-separated segments of `[A-Za-z0-9_]`, at
//! most [`MAX_TAG_DEPTH`] of them. Blank
//! lines are ignored. The same tag may appear on several lines; the lines are
//! merged and the first comment wins. Parents (`Combat`, `Combat.DamageType`)
//! exist implicitly and need no line of their own.

use super::MAX_TAG_DEPTH;
use crate::diagnostics::{Diagnostic, LoadErrors};

/// One declared tag, as read from a line of a `.tags` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeclaredTag {
    pub name: String,
    pub comment: Option<String>,
    pub line: u32,
}

/// Parses the text of a `.tags` file.
pub(crate) fn parse(file: &str, text: &str) -> (Vec<DeclaredTag>, LoadErrors) {
    let mut tags = Vec::new();
    let mut errors = LoadErrors::default();
    for (index, raw) in text.lines().enumerate() {
        let line = (index + 1) as u32;
        let (body, comment) = match raw.find('#') {
            Some(at) => (&raw[..at], Some(raw[at + 1..].trim())),
            None => (raw, None),
        };
        let name = body.trim();
        if name.is_empty() {
            continue;
        }
        let start = body.len() - body.trim_start().len();
        let column_of = |byte: usize| raw[..start + byte].chars().count() as u32 + 1;
        match validate_name(name) {
            Ok(()) => tags.push(DeclaredTag {
                name: name.to_owned(),
                comment: comment.filter(|c| !c.is_empty()).map(str::to_owned),
                line,
            }),
            Err(problem) => errors.push(
                Diagnostic::error(
                    file,
                    format!("invalid tag name `{name}`: {}", problem.reason),
                )
                .at(text, line, column_of(problem.at), problem.width),
            ),
        }
    }
    (tags, errors)
}

/// What is wrong with a name, and where (byte offset within the name).
pub(crate) struct NameProblem {
    pub reason: String,
    pub at: usize,
    pub width: u32,
}

/// Checks the shape of a dotted tag name.
pub(crate) fn validate_name(name: &str) -> Result<(), NameProblem> {
    let problem = |reason: &str, at: usize, width: u32| NameProblem {
        reason: reason.to_owned(),
        at,
        width,
    };
    if name.is_empty() {
        return Err(problem("the name is empty", 0, 1));
    }
    if let Some(at) = name.find(char::is_whitespace) {
        return Err(problem("tag names cannot contain spaces", at, 1));
    }
    if name.starts_with('.') {
        return Err(problem("a tag name cannot start with a dot", 0, 1));
    }
    if name.ends_with('.') {
        return Err(problem(
            "a tag name cannot end with a dot",
            name.len() - 1,
            1,
        ));
    }
    if let Some(at) = name.find("..") {
        return Err(problem("empty segment between two dots", at, 2));
    }
    if let Some((at, _)) = name.match_indices('.').nth(MAX_TAG_DEPTH - 1) {
        let segments = name.matches('.').count() + 1;
        return Err(problem(
            &format!("a tag name has at most {MAX_TAG_DEPTH} segments, this one {segments}"),
            at,
            1,
        ));
    }
    if let Some((at, c)) = name
        .char_indices()
        .find(|&(_, c)| c != '.' && !(c.is_ascii_alphanumeric() || c == '_'))
    {
        return Err(NameProblem {
            reason: format!("character `{c}` is not allowed (use A-Z, a-z, 0-9 and _)"),
            at,
            width: 1,
        });
    }
    Ok(())
}

/// Checks a single identifier segment (no dots), as used for attribute and
/// definition names.
pub(crate) fn validate_segment(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".to_owned());
    }
    match name
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || c == '_'))
    {
        Some(c) => Err(format!(
            "character `{c}` is not allowed (use A-Z, a-z, 0-9 and _)"
        )),
        None => Ok(()),
    }
}
