//! [`NameTable`]: definition names interned to dense ids once, at load; and
//! [`Named`], an id with its name, for errors that read by name.

use std::collections::HashMap;
use std::fmt;

use crate::diagnostics::{nearest, Diagnostic, LoadErrors, SourceFile};

/// The most definitions of one kind a catalog holds: their ids are 16 bits.
pub const MAX_DEFINITIONS: usize = u16::MAX as usize + 1;

/// An error when `count` definitions of `kind` exceed [`MAX_DEFINITIONS`]
/// (their ids would alias).
pub(crate) fn check_count(kind: &str, count: usize, errors: &mut crate::LoadErrors) {
    if count > MAX_DEFINITIONS {
        errors.push(Diagnostic::error(
            "catalog",
            format!("{count} {kind} definitions; a catalog holds at most {MAX_DEFINITIONS}"),
        ));
    }
}

/// Names of one kind of definition (attributes, effects, abilities, ...) and
/// their dense indices. Lookups happen at load time only; the runtime keeps
/// the indices.
#[derive(Clone, Debug, Default)]
pub struct NameTable {
    kind: &'static str,
    names: Vec<Box<str>>,
    by_name: HashMap<Box<str>, usize>,
}

impl NameTable {
    /// An empty table; `kind` ("attribute", "effect", ...) words the errors.
    pub fn new(kind: &'static str) -> Self {
        Self {
            kind,
            names: Vec::new(),
            by_name: HashMap::new(),
        }
    }

    /// Adds `name` and returns its index, or the existing index if the name
    /// is taken (`Err`), so the caller can report the duplicate.
    pub fn insert(&mut self, name: &str) -> Result<usize, usize> {
        if let Some(&index) = self.by_name.get(name) {
            return Err(index);
        }
        let index = self.names.len();
        self.names.push(Box::from(name));
        self.by_name.insert(Box::from(name), index);
        Ok(index)
    }

    /// Declares a definition's `name`, written in `file`: its new index,
    /// or `None` with an error at the name when it is not a valid name or
    /// is already taken (`defined_in` gives the file of the index that
    /// took it). The same two checks for every kind of definition.
    pub(crate) fn declare<'f>(
        &mut self,
        name: &str,
        file: &SourceFile,
        defined_in: impl FnOnce(usize) -> &'f str,
        errors: &mut LoadErrors,
    ) -> Option<usize> {
        if let Err(problem) = crate::tags::validate_segment(name) {
            let message = format!("invalid {} name `{name}`: {problem}", self.kind);
            errors.push(file.error_at(name, message));
            return None;
        }
        match self.insert(name) {
            Ok(index) => Some(index),
            Err(first) => {
                let first_file = defined_in(first);
                let message = format!("{} `{name}` is already defined in {first_file}", self.kind);
                // At this definition: the second of the name in this file
                // when the first is here too (or the first here).
                let nth = usize::from(first_file == file.name);
                let error = crate::diagnostics::Diagnostic::error(&file.name, message);
                // From the opening quote, so the quoted name is found there.
                let at = crate::diagnostics::locate_definition(&file.text, name, nth)
                    .map_or(0, |at| at - 1);
                errors.push(error.at_text_from(&file.text, at, name));
                None
            }
        }
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The index of `name`, if known.
    pub fn get(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// Every name in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> {
        self.names.iter().map(|n| &**n)
    }

    /// The index of `name`, or an error located at the name's first
    /// appearance in `source` (the text of `file`) with a suggestion.
    pub fn resolve_in(&self, name: &str, file: &str, source: &str) -> Result<usize, Diagnostic> {
        self.get(name).ok_or_else(|| {
            Diagnostic::error(file, format!("unknown {} `{name}`", self.kind))
                .at_text(source, name)
                .suggest(nearest(name, self.iter()))
        })
    }
}

/// An id with the name it had in the catalog, so an error reads by name
/// wherever it ends up (a log, a trace, a panic message).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Named<T> {
    /// The id.
    pub id: T,
    /// Its name.
    pub name: String,
}

impl<T> Named<T> {
    /// `id` called `name`.
    pub fn new(id: T, name: impl Into<String>) -> Self {
        Self {
            id,
            name: name.into(),
        }
    }
}

impl<T> fmt::Display for Named<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.name)
    }
}
