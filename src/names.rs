//! [`NameTable`]: definition names interned to dense ids once, at load.

use std::collections::HashMap;

use crate::diagnostics::{nearest, Diagnostic};

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
