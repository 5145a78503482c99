//! [`TagRegistry`]: every known tag, interned once; and its builder.

use std::collections::{BTreeMap, HashMap};
use std::ops::Index;
use std::path::Path;

use super::file::{self, DeclaredTag};
use super::native::{Core, NativeTag, NativeTags};
use super::{Tag, TagSet};
use crate::diagnostics::{nearest, Diagnostic, LoadErrors};
use crate::fs_util::SourceLoader;

/// The tag files the core needs (its activation failure reasons),
/// embedded so a core registry needs no files. Game modules ship their own
/// (`gaskit::combat::TAG_FILES`).
pub const CORE_TAG_FILES: &[(&str, &str)] = &[(
    "tags/activation.tags",
    include_str!("../../tags/activation.tags"),
)];

/// The most tags one registry can hold (ids are `u16`, and the subtree end of
/// the last tag must fit too).
pub const MAX_TAGS: usize = u16::MAX as usize;

/// The most segments one tag name can have (`Combat.DamageType.Stab` has
/// three). Each parent of a name is a tag of its own, remembered by its
/// whole name, so a name of thousands of segments would take memory in
/// the square of its length; real taxonomies stay under ten.
pub const MAX_TAG_DEPTH: usize = 32;

/// Where a tag was declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagOrigin {
    /// File name as given to the builder.
    pub file: String,
    /// 1-based line of the first declaration.
    pub line: u32,
}

/// Every known gameplay tag, numbered once (the role of the
/// `UGameplayTagsManager`).
///
/// Build one with [`TagRegistryBuilder`], or take the core's own tags alone
/// with [`TagRegistry::core`]. A registry is immutable once built: ids
/// are dense and assigned in depth-first name order, so every tag knows its
/// subtree (see [`Tag`]). Name lookups ([`get`](Self::get),
/// [`resolve`](Self::resolve)) are for load time; game code keeps the
/// resulting [`Tag`]s.
#[derive(Clone, Debug)]
pub struct TagRegistry {
    tags: Vec<Tag>,
    names: Vec<Box<str>>,
    parents: Vec<Option<Tag>>,
    comments: Vec<Option<Box<str>>>,
    origins: Vec<Option<TagOrigin>>,
    by_name: HashMap<Box<str>, Tag>,
    native: NativeTags<Core>,
}

impl TagRegistry {
    /// The core's own tags alone ([`CORE_TAG_FILES`]).
    pub fn core() -> TagRegistry {
        TagRegistryBuilder::core()
            .build()
            .expect("the embedded core tags are valid; tests/tags.rs loads them")
    }

    /// Number of tags, implicit parents included.
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    /// True for a registry with no tags (never the case once natives are required).
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// Every tag in id (depth-first) order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Tag> + '_ {
        self.tags.iter().copied()
    }

    /// The tag with dense index `index`, if any.
    pub fn by_index(&self, index: usize) -> Option<Tag> {
        self.tags.get(index).copied()
    }

    /// True when `tag` is one of this registry's (ids from elsewhere, a
    /// damaged save, are not).
    pub fn knows(&self, tag: Tag) -> bool {
        self.by_index(tag.index()) == Some(tag)
    }

    /// The tag called `name`, if it exists. A hash lookup: load time only.
    pub fn get(&self, name: &str) -> Option<Tag> {
        self.by_name.get(name).copied()
    }

    /// The tag called `name`, or an error that suggests the nearest known name.
    pub fn resolve(&self, name: &str) -> Result<Tag, UnknownTag> {
        self.get(name).ok_or_else(|| UnknownTag {
            name: name.to_owned(),
            suggestion: self.suggest(name),
        })
    }

    /// Like [`resolve`](Self::resolve), with the error located at the name's
    /// first appearance in `source`, the text of `file`.
    pub fn resolve_in(&self, name: &str, file: &str, source: &str) -> Result<Tag, Diagnostic> {
        self.resolve(name)
            .map_err(|unknown| unknown.locate(file, source))
    }

    /// The nearest known tag name to `name`, if one is plausibly a typo of it.
    pub fn suggest(&self, name: &str) -> Option<String> {
        nearest(name, self.names.iter().map(|n| &**n))
    }

    /// The dotted name of `tag`; `?` for a tag not in this registry
    /// (another catalog's), so a log or trace line never fails on one.
    pub fn name(&self, tag: Tag) -> &str {
        self.names.get(tag.index()).map_or("?", |name| name)
    }

    /// The parent of `tag`, or `None` for a root (or a tag not in this
    /// registry).
    pub fn parent(&self, tag: Tag) -> Option<Tag> {
        self.parents.get(tag.index()).copied().flatten()
    }

    /// `tag` and every tag below it, in id order.
    pub fn subtree(&self, tag: Tag) -> impl Iterator<Item = Tag> + '_ {
        // Nothing for a tag not in this registry.
        let known = self.knows(tag);
        let range = if known {
            tag.index()..tag.subtree_end()
        } else {
            0..0
        };
        self.tags[range].iter().copied()
    }

    /// The direct children of `tag`, in id order.
    pub fn children(&self, tag: Tag) -> impl Iterator<Item = Tag> + '_ {
        let range = if self.knows(tag) {
            tag.index() + 1..tag.subtree_end()
        } else {
            0..0
        };
        self.tags[range]
            .iter()
            .copied()
            .filter(move |t| self.parents[t.index()] == Some(tag))
    }

    /// The developer comment written next to the tag in its `.tags` file.
    pub fn comment(&self, tag: Tag) -> Option<&str> {
        self.comments.get(tag.index())?.as_deref()
    }

    /// Where the tag was first declared, or `None` for an implicit parent
    /// (or a tag not in this registry).
    pub fn origin(&self, tag: Tag) -> Option<&TagOrigin> {
        self.origins.get(tag.index())?.as_ref()
    }

    /// The resolved tag for a core native constant. An array read.
    #[inline]
    pub fn native(&self, native: NativeTag<Core>) -> Tag {
        self.native[native]
    }

    /// Names of the tags in `set`, comma-separated, for messages and traces.
    pub fn format_set(&self, set: &TagSet) -> String {
        let mut out = String::new();
        for (i, tag) in set.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(self.name(tag));
        }
        out
    }
}

impl Index<NativeTag<Core>> for TagRegistry {
    type Output = Tag;

    #[inline]
    fn index(&self, native: NativeTag<Core>) -> &Tag {
        &self.native[native]
    }
}

/// A name that no loaded tag file declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTag {
    /// The name as written.
    pub name: String,
    /// The nearest known name, if any is close.
    pub suggestion: Option<String>,
}

impl UnknownTag {
    /// The same finding as a diagnostic located in `source`, the text of `file`.
    pub fn locate(self, file: &str, source: &str) -> Diagnostic {
        Diagnostic::error(file, format!("unknown tag `{}`", self.name))
            .at_text(source, &self.name)
            .suggest(self.suggestion)
    }
}

impl std::fmt::Display for UnknownTag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown tag `{}`", self.name)?;
        if let Some(s) = &self.suggestion {
            write!(f, " (did you mean `{s}`?)")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownTag {}

/// Collects tag declarations from files and strings, then numbers them.
///
/// Errors from every source are gathered; [`build`](Self::build) reports all
/// of them at once.
///
/// ```
/// use gaskit::TagRegistryBuilder;
///
/// let mut builder = TagRegistryBuilder::core();
/// builder.add_source("game.tags", "Status.Poisoned  # takes damage over time\n");
/// let registry = builder.build().unwrap();
/// let poisoned = registry.get("Status.Poisoned").unwrap();
/// assert!(poisoned.matches(registry.get("Status").unwrap()));
/// assert_eq!(registry.comment(poisoned), Some("takes damage over time"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct TagRegistryBuilder {
    declared: BTreeMap<String, (Option<String>, TagOrigin)>,
    /// Every name declared so far and each of its parents, by its
    /// lower-case form: the first spelling, and where it came from.
    spellings: HashMap<String, (String, TagOrigin)>,
    errors: LoadErrors,
}

impl TagRegistryBuilder {
    /// A builder with no tags. [`build`](Self::build) will require the
    /// core's [native tags](crate::native) to be declared by some source.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder holding the core's own tags ([`CORE_TAG_FILES`]); add the
    /// game's files on top.
    pub fn core() -> Self {
        let mut builder = Self::new();
        builder.add_files(CORE_TAG_FILES);
        builder
    }

    /// Adds embedded `(name, text)` tag files, such as a game module's.
    pub fn add_files(&mut self, files: &[(&str, &str)]) -> &mut Self {
        for (file, text) in files {
            self.add_source(file, text);
        }
        self
    }

    /// Adds the tags declared in `text`; `file` names it in diagnostics.
    pub fn add_source(&mut self, file: &str, text: &str) -> &mut Self {
        let (tags, errors) = file::parse(file, text);
        self.declare(file, text, tags, errors)
    }

    /// Adds the tags declared in raw `bytes` (non-UTF-8 input is an error).
    pub fn add_bytes(&mut self, file: &str, bytes: &[u8]) -> &mut Self {
        self.load_bytes(file, bytes);
        self
    }

    /// Reads and adds one `.tags` file.
    pub fn add_file(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.load_file(path.as_ref());
        self
    }

    /// Adds every `*.tags` file directly inside `dir`, in file-name order.
    pub fn add_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.load_dir(dir.as_ref());
        self
    }

    /// Declares one tag from code. `origin` names the caller in diagnostics.
    pub fn add_tag(&mut self, name: &str, origin: &str) -> &mut Self {
        self.add_source(origin, name)
    }

    fn declare(
        &mut self,
        file: &str,
        text: &str,
        tags: Vec<DeclaredTag>,
        errors: LoadErrors,
    ) -> &mut Self {
        self.errors.extend(errors);
        for tag in tags {
            let origin = TagOrigin {
                file: file.to_owned(),
                line: tag.line,
            };
            if let Some(error) = self.case_clash(file, text, &tag.name, &origin) {
                self.errors.push(error);
                continue;
            }
            let entry = self.declared.entry(tag.name).or_insert((None, origin));
            if entry.0.is_none() {
                entry.0 = tag.comment;
            }
        }
        self
    }

    /// A name (or one of its parents) spelled as an earlier one is but
    /// for its case: two tags the game would take for one (Unreal's tags
    /// ignore case), so a typo, refused where it is made. Otherwise the
    /// name and its parents are remembered.
    fn case_clash(
        &mut self,
        file: &str,
        text: &str,
        name: &str,
        origin: &TagOrigin,
    ) -> Option<Diagnostic> {
        let parents = name.match_indices('.').map(|(at, _)| &name[..at]);
        for spelling in parents.chain(std::iter::once(name)) {
            let (first, first_origin) = self
                .spellings
                .entry(spelling.to_ascii_lowercase())
                .or_insert_with(|| (spelling.to_owned(), origin.clone()));
            if first != spelling {
                let message = format!(
                    "tag `{name}`: `{spelling}` differs only in case from `{first}` \
                     ({}:{}); tags are matched exactly, so they would be two tags",
                    first_origin.file, first_origin.line
                );
                let width = spelling.chars().count() as u32;
                let column = text
                    .lines()
                    .nth(origin.line.saturating_sub(1) as usize)
                    .and_then(|line| line.find(name))
                    .map_or(1, |byte| byte as u32 + 1);
                return Some(Diagnostic::error(file, message).at(text, origin.line, column, width));
            }
        }
        None
    }

    /// Numbers every declared tag and its implicit parents, and resolves the
    /// native tags. Fails with every collected diagnostic if any source had
    /// an error, a native tag is missing, or there are more than
    /// [`MAX_TAGS`] tags.
    pub fn build(self) -> Result<TagRegistry, LoadErrors> {
        let Self {
            declared,
            mut errors,
            spellings: _,
        } = self;

        // Every declared name plus all of its ancestors. `.` sorts below every
        // character a segment may hold, so byte order is depth-first order and
        // each subtree is one contiguous run.
        let mut all: BTreeMap<&str, Option<&(Option<String>, TagOrigin)>> = BTreeMap::new();
        for (name, entry) in &declared {
            all.insert(name, Some(entry));
            let mut rest = name.as_str();
            while let Some(at) = rest.rfind('.') {
                rest = &rest[..at];
                all.entry(rest).or_insert(None);
            }
        }
        if all.len() > MAX_TAGS {
            errors.push(Diagnostic::error(
                "tag registry",
                format!(
                    "{} tags declared; a registry holds at most {MAX_TAGS}",
                    all.len()
                ),
            ));
            return Err(errors);
        }

        let names: Vec<&str> = all.keys().copied().collect();
        let ends = subtree_ends(&names);
        let tags: Vec<Tag> = (0..names.len())
            .map(|i| Tag::from_parts(i as u16, ends[i] as u16))
            .collect();
        let by_name: HashMap<Box<str>, Tag> = names
            .iter()
            .zip(&tags)
            .map(|(name, tag)| (Box::from(*name), *tag))
            .collect();
        let parents = names
            .iter()
            .map(|name| name.rfind('.').map(|at| by_name[&name[..at]]))
            .collect();
        let comments = all
            .values()
            .map(|entry| entry.and_then(|(comment, _)| comment.as_deref().map(Box::from)))
            .collect();
        let origins = all
            .values()
            .map(|entry| entry.map(|(_, origin)| origin.clone()))
            .collect();

        let mut registry = TagRegistry {
            tags,
            names: names.iter().map(|n| Box::from(*n)).collect(),
            parents,
            comments,
            origins,
            by_name,
            native: NativeTags::empty(),
        };
        registry.native = NativeTags::resolve_into(&registry, "gaskit", &mut errors);
        errors.into_result(registry)
    }
}

/// For names in depth-first order, the index one past each name's subtree.
fn subtree_ends(names: &[&str]) -> Vec<usize> {
    let mut ends = vec![names.len(); names.len()];
    // Indices of the ancestors of the current name, innermost last.
    let mut open: Vec<usize> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        while let Some(&top) = open.last() {
            let parent = names[top];
            let inside = name.len() > parent.len()
                && name.starts_with(parent)
                && name.as_bytes()[parent.len()] == b'.';
            if inside {
                break;
            }
            ends[top] = i;
            open.pop();
        }
        open.push(i);
    }
    ends
}

impl SourceLoader for TagRegistryBuilder {
    const EXTENSION: &'static str = "tags";
    const KIND: &'static str = "tag";

    fn load_text(&mut self, file: &str, text: &str) {
        self.add_source(file, text);
    }

    fn record(&mut self, error: Diagnostic) {
        self.errors.push(error);
    }
}
