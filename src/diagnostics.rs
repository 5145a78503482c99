//! Load-time diagnostics: errors and warnings that point at a file, a line and
//! a column, show the offending text and suggest the nearest valid name.
//!
//! Every loader in gaskit (tag files, RON content, scenarios, saves) reports
//! through [`Diagnostic`]. A loader collects as many diagnostics as it can in
//! one pass and returns them together as [`LoadErrors`], so a designer fixes a
//! file in one round trip instead of one error at a time.

use std::fmt;

/// How bad a [`Diagnostic`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Legitimate data that is probably not what the author meant (for example
    /// a weapon with `attack_range: 0`, which silently uses the fallback).
    Warning,
    /// The data cannot be used; loading fails.
    Error,
}

/// One finding about a piece of data, located in its source file.
///
/// `line` and `column` are 1-based; a column counts characters, not bytes.
/// `line == 0` means the finding concerns the file as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file (or embedded source name) the finding is in.
    pub file: String,
    /// 1-based line, or 0 when the finding concerns the whole file.
    pub line: u32,
    /// 1-based column in characters, or 0 when unknown.
    pub column: u32,
    /// Number of characters the finding spans, for the `^^^` underline.
    pub width: u32,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The text of the offending line, if any.
    pub snippet: Option<String>,
    /// The nearest valid name, rendered as "did you mean `...`?".
    pub suggestion: Option<String>,
}

impl Diagnostic {
    /// An error about `file` with no position yet.
    pub fn error(file: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            file: file.into(),
            line: 0,
            column: 0,
            width: 0,
            message: message.into(),
            snippet: None,
            suggestion: None,
        }
    }

    /// A warning about `file` with no position yet.
    pub fn warning(file: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(file, message)
        }
    }

    /// Places the finding at `line:column` of `source`, spanning `width`
    /// characters, and copies the line into the snippet.
    pub fn at(mut self, source: &str, line: u32, column: u32, width: u32) -> Self {
        self.line = line;
        self.column = column;
        self.width = width.max(1);
        self.snippet = source
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .map(|text| text.trim_end().to_owned());
        self
    }

    /// Places the finding at the first occurrence of `needle` in `source`
    /// (searching for the quoted form `"needle"` first, as RON writes names),
    /// or leaves it file-level when the text cannot be found.
    pub fn at_text(self, source: &str, needle: &str) -> Self {
        self.at_text_occurrence(source, needle, 0)
    }

    /// Like [`Diagnostic::at_text`], but for the `occurrence`-th (0-based)
    /// appearance, for names that appear several times.
    pub fn at_text_occurrence(self, source: &str, needle: &str, occurrence: usize) -> Self {
        match locate(source, needle, occurrence) {
            Some((line, column)) => {
                let width = needle.chars().count() as u32;
                self.at(source, line, column, width)
            }
            None => self,
        }
    }

    /// Like [`Diagnostic::at_text`], but searching only after the first
    /// appearance of `anchor` (for example the name of the definition that
    /// holds the offending text), so a name that also appears earlier in the
    /// file is found where it is actually wrong.
    pub fn at_text_after(self, source: &str, anchor: &str, needle: &str) -> Self {
        let start = locate_offset(source, anchor, 0).unwrap_or(0);
        match locate_offset(&source[start..], needle, 0) {
            Some(offset) => {
                let (line, column) = line_column(source, start + offset);
                let width = needle.chars().count() as u32;
                self.at(source, line, column, width)
            }
            None => self.at_text(source, anchor),
        }
    }

    /// Like [`Diagnostic::at_text`], but searching from byte `start` (for
    /// example where the list entry that holds the offending text begins,
    /// found with [`locate_field`]), and in the whole file when the text
    /// is not after it.
    pub fn at_text_from(self, source: &str, start: usize, needle: &str) -> Self {
        let start = floor_char_boundary(source, start.min(source.len()));
        match locate_offset(&source[start..], needle, 0) {
            Some(offset) => {
                let (line, column) = line_column(source, start + offset);
                let width = needle.chars().count() as u32;
                self.at(source, line, column, width)
            }
            None => self.at_text(source, needle),
        }
    }

    /// Adds a "did you mean" suggestion.
    pub fn suggest(mut self, suggestion: Option<String>) -> Self {
        self.suggestion = suggestion;
        self
    }

    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        writeln!(f, "{label}: {}", self.message)?;
        if self.line == 0 {
            write!(f, "  --> {}", self.file)?;
        } else {
            write!(f, "  --> {}:{}:{}", self.file, self.line, self.column)?;
        }
        if let Some(snippet) = &self.snippet {
            let gutter = self.line.to_string();
            let pad = " ".repeat(gutter.len());
            write!(f, "\n{pad} |\n{gutter} | {snippet}\n{pad} | ")?;
            let indent = " ".repeat(self.column.saturating_sub(1) as usize);
            write!(f, "{indent}{}", "^".repeat(self.width.max(1) as usize))?;
        }
        if let Some(suggestion) = &self.suggestion {
            write!(f, "\n  = help: did you mean `{suggestion}`?")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// The text of one loaded file, kept so later passes can locate findings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The name diagnostics use (a path, or an embedded name like `abilities/core.ron`).
    pub name: String,
    /// The whole text.
    pub text: String,
}

impl SourceFile {
    /// An error located at the first appearance of `needle`.
    pub fn error_at(&self, needle: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(&self.name, message).at_text(&self.text, needle)
    }

    /// An error located at the struct field `field` (its first, see
    /// [`locate_field`]), or file-level when there is none.
    pub fn error_at_field(&self, field: &str, message: impl Into<String>) -> Diagnostic {
        let error = Diagnostic::error(&self.name, message);
        match locate_field(&self.text, field, 0) {
            Some(start) => error.at_text_from(&self.text, start, field),
            None => error,
        }
    }

    /// A warning located at the first appearance of `needle`.
    pub fn warning_at(&self, needle: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::warning(&self.name, message).at_text(&self.text, needle)
    }

    /// A warning located at `needle` after the first appearance of `anchor`.
    pub fn warning_after(
        &self,
        anchor: &str,
        needle: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::warning(&self.name, message).at_text_after(&self.text, anchor, needle)
    }

    /// An error located at `needle` after the first appearance of `anchor`.
    pub fn error_after(
        &self,
        anchor: &str,
        needle: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::error(&self.name, message).at_text_after(&self.text, anchor, needle)
    }
}

/// All diagnostics from one load. Loading failed if any of them is an error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadErrors(pub Vec<Diagnostic>);

impl LoadErrors {
    /// True when at least one diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    /// Only the errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.is_error())
    }

    /// Only the warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| !d.is_error())
    }

    /// Adds one diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// Adds every diagnostic from `other`.
    pub fn extend(&mut self, other: LoadErrors) {
        self.0.extend(other.0);
    }

    /// `Err(self)` if there is any error, otherwise `Ok(value)` (warnings are
    /// dropped; use [`LoadErrors::warnings`] before calling to keep them).
    pub fn into_result<T>(self, value: T) -> Result<T, LoadErrors> {
        if self.has_errors() {
            Err(self)
        } else {
            Ok(value)
        }
    }
}

impl From<Diagnostic> for LoadErrors {
    fn from(diagnostic: Diagnostic) -> Self {
        LoadErrors(vec![diagnostic])
    }
}

impl fmt::Display for LoadErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, diagnostic) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            writeln!(f, "{diagnostic}")?;
        }
        let errors = self.errors().count();
        let warnings = self.0.len() - errors;
        write!(f, "{errors} error(s), {warnings} warning(s)")
    }
}

impl std::error::Error for LoadErrors {}

/// 1-based `(line, column)` of the `occurrence`-th appearance of `needle` in
/// `source`. The quoted form `"needle"` is preferred because RON data writes
/// names as strings; the bare form is the fallback. Columns count characters.
pub fn locate(source: &str, needle: &str, occurrence: usize) -> Option<(u32, u32)> {
    locate_offset(source, needle, occurrence).map(|offset| line_column(source, offset))
}

/// Byte offset of the `occurrence`-th (0-based) RON struct field named
/// `field` in `source`: the identifier followed by `:`, outside strings and
/// comments. Where the `occurrence`-th entry of a list of structs begins,
/// when the field is one only those entries have (a scenario's inputs and
/// their `at`), so a finding in one entry is located there and not at the
/// first text that looks like it.
pub fn locate_field(source: &str, field: &str, occurrence: usize) -> Option<usize> {
    field_offsets(source, field).nth(occurrence)
}

/// Byte offset of the name in the `occurrence`-th (0-based) definition
/// `name: "name"` in `source` (inside its quotes): where a definition made
/// twice in one file is, the second time.
pub fn locate_definition(source: &str, name: &str, occurrence: usize) -> Option<usize> {
    let quoted = format!("\"{name}\"");
    field_offsets(source, "name")
        .filter_map(|at| {
            let value = source[at + "name".len()..].trim_start().strip_prefix(':')?;
            let trimmed = value.trim_start();
            let start = source.len() - trimmed.len();
            trimmed.starts_with(&quoted).then_some(start + 1)
        })
        .nth(occurrence)
}

/// The byte offsets of every RON struct field named `field` in `source`,
/// in order (see [`locate_field`]), found in one pass.
fn field_offsets<'a>(source: &'a str, field: &'a str) -> impl Iterator<Item = usize> + 'a {
    let bytes = source.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            match bytes[i] {
                b'"' => i = skip_quoted(bytes, i + 1, b'"'),
                b'\'' => i = skip_quoted(bytes, i + 1, b'\''),
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    i = bytes[i..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(bytes.len(), |at| i + at + 1);
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    i = source[i + 2..]
                        .find("*/")
                        .map_or(bytes.len(), |at| i + 2 + at + 2);
                }
                b if b.is_ascii_alphabetic() || b == b'_' => {
                    let start = i;
                    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_')
                    {
                        i += 1;
                    }
                    let after = source[i..].trim_start();
                    if &source[start..i] == field && after.starts_with(':') {
                        return Some(start);
                    }
                }
                _ => i += 1,
            }
        }
        None
    })
}

/// The index just past the `close` that ends a quoted literal whose text
/// starts at `i` (backslash escapes skipped), or the end of the input.
fn skip_quoted(bytes: &[u8], mut i: usize, close: u8) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == close => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Byte offset form of [`locate`].
fn locate_offset(source: &str, needle: &str, occurrence: usize) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    let quoted = format!("\"{needle}\"");
    nth_match(source, &quoted, occurrence)
        .map(|at| at + 1)
        .or_else(|| nth_match(source, needle, occurrence))
}

fn nth_match(source: &str, needle: &str, occurrence: usize) -> Option<usize> {
    source
        .match_indices(needle)
        .nth(occurrence)
        .map(|(at, _)| at)
}

/// 1-based `(line, column)` of byte `offset` in `source`; columns count characters.
pub fn line_column(source: &str, offset: usize) -> (u32, u32) {
    let offset = offset.min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let column = before[line_start..].chars().count() + 1;
    (line as u32, column as u32)
}

fn floor_char_boundary(source: &str, mut offset: usize) -> usize {
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The candidate closest to `wanted` by edit distance (case-insensitive), if it
/// is close enough to be a plausible typo. A candidate whose last dotted
/// segment equals the wanted one's is also accepted (`Slash` finds
/// `Combat.DamageType.Slash`).
pub fn nearest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let wanted_lower = wanted.to_ascii_lowercase();
    let wanted_leaf = wanted_lower.rsplit('.').next().unwrap_or("");
    let budget = (wanted.chars().count() / 3).max(2);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let lower = candidate.to_ascii_lowercase();
        let mut distance = edit_distance(&wanted_lower, &lower);
        let leaf = lower.rsplit('.').next().unwrap_or("");
        if !wanted_leaf.is_empty() && leaf == wanted_leaf && distance > budget {
            distance = budget;
        }
        if distance <= budget && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, name)| name.to_owned())
}

/// Levenshtein distance over characters, with one row of scratch space.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            let cost = usize::from(ca != cb);
            row[j + 1] = (diagonal + cost).min(row[j] + 1).min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A definition made twice in one file is found the second time, by
    /// its `name` field, not where the name is first mentioned.
    #[test]
    fn locate_definition_finds_the_nth_definition_of_a_name() {
        let source = "(a: \"X\", effects: [\n  (name: \"X\"),\n  (name:\"Y\"),\n  (name : \"X\")])";
        let first = locate_definition(source, "X", 0).unwrap();
        assert_eq!(line_column(source, first), (2, 11));
        let second = locate_definition(source, "X", 1).unwrap();
        assert_eq!(line_column(source, second), (4, 12));
        assert_eq!(locate_definition(source, "X", 2), None);
    }

    /// A field is an identifier followed by `:`, never text inside a
    /// string or a comment, nor a longer identifier ending in it.
    #[test]
    fn locate_field_skips_strings_comments_and_longer_names() {
        let source = "// at: 0\n/* at: 1 */ (flat: 2, s: \"at: 3\", c: ':',\n  at : 4, at: 5)";
        let first = locate_field(source, "at", 0).unwrap();
        assert_eq!(&source[first..first + 6], "at : 4");
        assert_eq!(line_column(source, first), (3, 3));
        let second = locate_field(source, "at", 1).unwrap();
        assert_eq!(&source[second..second + 5], "at: 5");
        assert_eq!(locate_field(source, "at", 2), None);
        assert_eq!(locate_field("(at \"x\")", "at", 0), None, "no colon");
    }

    #[test]
    fn locate_prefers_quoted_names_and_counts_characters() {
        let source = "a: Slash\nb: \"Slash\"\nc: \"é\", \"x\"";
        assert_eq!(locate(source, "Slash", 0), Some((2, 5)));
        assert_eq!(locate(source, "x", 0), Some((3, 10)));
        assert_eq!(locate(source, "missing", 0), None);
    }

    #[test]
    fn nearest_finds_typos_and_leaf_names() {
        let names = [
            "Combat.DamageType.Slash",
            "Combat.DamageType.Stab",
            "Status.Dead",
        ];
        assert_eq!(
            nearest("Combat.DamageType.Slsh", names).as_deref(),
            Some("Combat.DamageType.Slash")
        );
        assert_eq!(
            nearest("Slash", names).as_deref(),
            Some("Combat.DamageType.Slash")
        );
        assert_eq!(
            nearest("status.dead", names).as_deref(),
            Some("Status.Dead")
        );
        assert_eq!(nearest("Completely.Different.Thing", names), None);
    }

    #[test]
    fn display_underlines_the_offending_text() {
        let source = "line one\n  damage: \"Bad.Tag\",\n";
        let text = Diagnostic::error("items.ron", "unknown tag `Bad.Tag`")
            .at_text(source, "Bad.Tag")
            .suggest(Some("Good.Tag".into()))
            .to_string();
        assert_eq!(
            text,
            "error: unknown tag `Bad.Tag`\n  --> items.ron:2:12\n  |\n2 |   damage: \"Bad.Tag\",\n  |            ^^^^^^^\n  = help: did you mean `Good.Tag`?"
        );
    }
}
