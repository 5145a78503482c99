//! Reading source files for the loaders: listing, reading and UTF-8
//! decoding, each failure a [`Diagnostic`].

use std::path::{Path, PathBuf};

use crate::diagnostics::{line_column, Diagnostic};

/// Files directly inside `dir` whose extension is `extension`, sorted by
/// path so loading order (and so every diagnostic and id) is deterministic.
/// `kind` ("tag", "content") words the error.
pub(crate) fn list(dir: &Path, extension: &str, kind: &str) -> Result<Vec<PathBuf>, Diagnostic> {
    let listing = || -> std::io::Result<Vec<PathBuf>> {
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_file() && path.extension().is_some_and(|e| e == extension) {
                paths.push(path);
            }
        }
        paths.sort();
        Ok(paths)
    };
    listing().map_err(|error| {
        Diagnostic::error(
            dir.display().to_string(),
            format!("cannot list {kind} directory: {error}"),
        )
    })
}

/// The whole file at `path` as `(name for diagnostics, bytes)`.
pub(crate) fn read(path: &Path, kind: &str) -> Result<(String, Vec<u8>), Diagnostic> {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => Ok((name, bytes)),
        Err(error) => Err(Diagnostic::error(
            name,
            format!("cannot read {kind} file: {error}"),
        )),
    }
}

/// `bytes` as text, or an error located at the first byte that is not UTF-8.
pub(crate) fn decode<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|error| {
        let valid = error.valid_up_to();
        // The prefix before the first bad byte is valid UTF-8 by definition.
        let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        let (line, column) = line_column(prefix, prefix.len());
        let lossy = String::from_utf8_lossy(bytes);
        Diagnostic::error(
            file,
            format!(
                "file is not valid UTF-8 (byte 0x{:02X} cannot start or continue a character)",
                bytes[valid]
            ),
        )
        .at(&lossy, line, column, 1)
    })
}

/// A builder that takes source text; the file-handling front end (bytes,
/// one file, a directory) is shared by every loader through this trait.
pub(crate) trait SourceLoader {
    /// The extension picked up by [`load_dir`](Self::load_dir).
    const EXTENSION: &'static str;
    /// What the files hold, for error messages ("tag", "content").
    const KIND: &'static str;

    /// Takes the text of one file.
    fn load_text(&mut self, file: &str, text: &str);

    /// Records a problem found before any text could be read.
    fn record(&mut self, error: Diagnostic);

    /// Decodes and loads `bytes`.
    fn load_bytes(&mut self, file: &str, bytes: &[u8]) {
        match decode(file, bytes) {
            Ok(text) => self.load_text(file, text),
            Err(error) => self.record(error),
        }
    }

    /// Reads and loads one file.
    fn load_file(&mut self, path: &Path) {
        match read(path, Self::KIND) {
            Ok((name, bytes)) => self.load_bytes(&name, &bytes),
            Err(error) => self.record(error),
        }
    }

    /// Loads every matching file directly inside `dir`, in name order.
    fn load_dir(&mut self, dir: &Path) {
        match list(dir, Self::EXTENSION, Self::KIND) {
            Ok(paths) => paths.iter().for_each(|path| self.load_file(path)),
            Err(error) => self.record(error),
        }
    }
}
