//! [`CatalogBuilder`] and [`Catalog`].

use std::any::TypeId;
use std::path::Path;
use std::sync::Arc;

use super::content::ContentFile;
use super::section::TopLevelKeys;
use super::section::{BuiltSection, ContentSection, Fingerprint, SectionBuilder, SectionCx};
use crate::abilities::{AbilityDefs, BehaviourId};
use crate::attributes::{AttributeSchema, ProfileId};
use crate::diagnostics::{nearest, Diagnostic, LoadErrors, SourceFile};
use crate::effects::{
    Calculations, EffectDefs, ExecutionCalculation, MagnitudeCalculation, PendingCalculations,
};
use crate::fs_util::SourceLoader;
use crate::names::check_count;
use crate::tags::{TagRegistry, TagRegistryBuilder, TagSet, CORE_TAG_FILES};

/// Every definition a simulation uses, compiled and immutable.
///
/// Build one with [`CatalogBuilder`]. Share it (it is cheap to wrap in an
/// `Arc`); entities refer to its definitions by id.
#[derive(Clone, Debug)]
pub struct Catalog {
    tags: TagRegistry,
    attributes: AttributeSchema,
    calculations: Calculations,
    effects: EffectDefs,
    abilities: AbilityDefs,
    sections: Vec<BuiltSection>,
    warnings: Vec<Diagnostic>,
    fingerprint: u64,
}

impl Catalog {
    /// The tag registry.
    pub fn tags(&self) -> &TagRegistry {
        &self.tags
    }

    /// The attribute schema.
    pub fn attributes(&self) -> &AttributeSchema {
        &self.attributes
    }

    /// The gameplay effect definitions.
    pub fn effects(&self) -> &EffectDefs {
        &self.effects
    }

    /// The execution and magnitude calculations registered in code.
    pub fn calculations(&self) -> &Calculations {
        &self.calculations
    }

    /// The ability definitions.
    pub fn abilities(&self) -> &AbilityDefs {
        &self.abilities
    }

    /// A game module's compiled section, if the builder registered it. A
    /// short scan by type: resolve it once (or keep [`section_arc`](Self::section_arc))
    /// rather than on every frame.
    pub fn section<T: ContentSection>(&self) -> Option<&T> {
        self.find::<T>()?.value.downcast_ref()
    }

    /// The shared handle of a module's section, to keep beside the catalog.
    pub fn section_arc<T: ContentSection>(&self) -> Option<Arc<T>> {
        self.find::<T>()?.value.clone().downcast().ok()
    }

    fn find<T: ContentSection>(&self) -> Option<&BuiltSection> {
        let id = TypeId::of::<T>();
        self.sections.iter().find(|s| s.type_id == id)
    }

    /// The modules whose sections this catalog holds, in registration order.
    pub fn modules(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.sections.iter().map(|s| s.module)
    }

    /// Warnings found while loading (the load succeeded despite them).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// A hash of what saved state depends on: every name the catalog
    /// numbers (tags, attributes, derived profiles, effects, abilities,
    /// behaviours, calculations, each module's definitions), in id order,
    /// and the text of every content file (in any order, line endings
    /// aside). Two catalogs with the same fingerprint give every id the
    /// same meaning and every definition the same content, so state saved
    /// under one (a rollback snapshot) may be restored under the other. A
    /// change of numbers under the same names (a balance patch) changes
    /// it: what a save holds follows the definitions it was made under
    /// (the tags an effect granted, a stack's count under its limit).
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    fn compute_fingerprint(&self, content: u64) -> u64 {
        let mut hash = Fingerprint::default();
        hash.write_u64(content);
        for tag in self.tags.iter() {
            hash.write_name(self.tags.name(tag));
        }
        for id in self.attributes.ids() {
            hash.write_name(self.attributes.name(id));
        }
        for def in self.effects.iter() {
            hash.write_name(&def.name);
        }
        for id in self.abilities.ids() {
            hash.write_name(&self.abilities.def(id).name);
        }
        // What else ids index: derived profiles, behaviours, calculations.
        let schema = &self.attributes;
        for index in 0..schema.profile_count() {
            hash.write_name(schema.profile_name(ProfileId::new(index)));
        }
        for index in 0..self.abilities.behaviour_count() {
            hash.write_name(
                self.abilities
                    .behaviour_name(BehaviourId::from_index(index)),
            );
        }
        for name in self.calculations.execution_names().iter() {
            hash.write_name(name);
        }
        for name in self.calculations.magnitude_names().iter() {
            hash.write_name(name);
        }
        for section in &self.sections {
            hash.write_u64(section.fingerprint);
        }
        hash.finish()
    }
}

/// Collects tag files and content files, then validates and compiles them.
///
/// Every problem in every file is collected; [`build`](Self::build) reports
/// them together.
///
/// ```
/// use gaskit::CatalogBuilder;
///
/// let mut builder = CatalogBuilder::new();
/// builder.add_source("game.ron", r#"(attributes: [(name: "Mana", base: 100, min: 0)])"#);
/// let catalog = builder.build().unwrap();
/// assert!(catalog.attributes().get("Mana").is_some());
/// ```
#[derive(Debug)]
pub struct CatalogBuilder {
    tags: TagRegistryBuilder,
    files: Vec<ParsedFile>,
    sections: Vec<SectionBuilder>,
    calculations: PendingCalculations,
    errors: LoadErrors,
}

/// A content file with the core's reading of it.
#[derive(Clone, Debug)]
struct ParsedFile {
    source: SourceFile,
    content: ContentFile,
    keys: Vec<String>,
}

impl Default for CatalogBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl CatalogBuilder {
    /// The core's own tags ([`CORE_TAG_FILES`]) and no content: add the
    /// game's tag files, content files and module sections on top.
    pub fn new() -> Self {
        let mut tags = TagRegistryBuilder::new();
        tags.add_files(CORE_TAG_FILES);
        CatalogBuilder {
            tags,
            files: Vec::new(),
            sections: Vec::new(),
            calculations: PendingCalculations::default(),
            errors: LoadErrors::default(),
        }
    }

    /// Registers an execution calculation under the name content uses
    /// (`executions: ["SpellDamage"]`). Its setup runs at build.
    pub fn add_execution(
        &mut self,
        name: &str,
        calculation: impl ExecutionCalculation,
    ) -> &mut Self {
        self.calculations
            .executions
            .push((name.to_owned(), Box::new(calculation)));
        self
    }

    /// Registers a magnitude calculation under the name content uses
    /// (`magnitude: Custom("Falloff")`). Its setup runs at build.
    pub fn add_magnitude(
        &mut self,
        name: &str,
        calculation: impl MagnitudeCalculation,
    ) -> &mut Self {
        self.calculations
            .magnitudes
            .push((name.to_owned(), Box::new(calculation)));
        self
    }

    /// The tag registry under construction, to add tag files.
    pub fn tags(&mut self) -> &mut TagRegistryBuilder {
        &mut self.tags
    }

    /// Registers a game module's content section: its keys become valid
    /// in content files, and it is compiled with the rest. Registering the
    /// same section twice does nothing.
    pub fn add_section<T: ContentSection>(&mut self) -> &mut Self {
        if !self.sections.iter().any(|s| s.type_id == TypeId::of::<T>()) {
            self.sections.push(SectionBuilder::of::<T>());
        }
        self
    }

    /// Adds a content file's text; `file` names it in diagnostics.
    pub fn add_source(&mut self, file: &str, text: &str) -> &mut Self {
        let parsed = crate::ron_format::from_str::<ContentFile>(text, file).and_then(|content| {
            let keys = crate::ron_format::from_str::<TopLevelKeys>(text, file)?.0;
            Ok(ParsedFile {
                source: SourceFile {
                    name: file.to_owned(),
                    text: text.to_owned(),
                },
                content,
                keys,
            })
        });
        match parsed {
            Ok(parsed) => self.files.push(parsed),
            Err(error) => self.errors.push(error),
        }
        self
    }

    /// Adds embedded `(name, text)` content files, such as a game module's.
    pub fn add_files(&mut self, files: &[(&str, &str)]) -> &mut Self {
        for (file, text) in files {
            self.add_source(file, text);
        }
        self
    }

    /// Adds a content file held as raw `bytes` (non-UTF-8 input is an error).
    pub fn add_bytes(&mut self, file: &str, bytes: &[u8]) -> &mut Self {
        self.load_bytes(file, bytes);
        self
    }

    /// Reads and adds one content file.
    pub fn add_file(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.load_file(path.as_ref());
        self
    }

    /// Adds every `*.ron` file directly inside `dir`, in file-name order.
    pub fn add_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.load_dir(dir.as_ref());
        self
    }

    /// Validates and compiles everything: tags, then attributes, effects,
    /// abilities, then each module's section. Fails with every error found;
    /// warnings are kept on the catalog.
    pub fn build(self) -> Result<Catalog, LoadErrors> {
        let CatalogBuilder {
            tags,
            files,
            sections,
            calculations,
            mut errors,
        } = self;
        check_sections(&files, &sections, &mut errors);
        let tags = match tags.build() {
            Ok(tags) => tags,
            Err(tag_errors) => {
                errors.extend(tag_errors);
                return Err(errors);
            }
        };
        let attribute_data = section(&files, |c| &c.attributes);
        let profiles = section(&files, |c| &c.derived);
        let attributes = AttributeSchema::build(&attribute_data, &profiles, &mut errors);
        let calculations = Calculations::build(calculations, &tags, &attributes, &mut errors);
        let effect_data = section(&files, |c| &c.effects);
        let life: Vec<_> = files
            .iter()
            .filter_map(|f| f.content.life.as_ref().map(|l| (&f.source, l)))
            .collect();
        let mut effects = EffectDefs::build(
            &effect_data,
            &life,
            &attribute_data,
            &tags,
            &attributes,
            &calculations,
            &mut errors,
        );
        let abilities = section(&files, |c| &c.abilities);
        let abilities = AbilityDefs::build(&abilities, &tags, &effects, &mut errors);
        for (kind, count) in [
            ("effect", effects.len()),
            ("ability", abilities.len()),
            ("behaviour", abilities.behaviour_count()),
            (
                "execution calculation",
                calculations.execution_names().len(),
            ),
            (
                "magnitude calculation",
                calculations.magnitude_names().len(),
            ),
            ("derived profile", attributes.profile_count()),
        ] {
            check_count(kind, count, &mut errors);
        }
        effects.link_abilities(&effect_data, &abilities, &mut errors);
        let reactive = reactive_tags(&tags, &effects, &abilities);
        effects.settle_shapes(reactive);
        let sources: Vec<SourceFile> = files.into_iter().map(|f| f.source).collect();
        let content = content_hash(&sources);
        let cx = SectionCx {
            files: &sources,
            tags: &tags,
            attributes: &attributes,
            effects: &effects,
            abilities: &abilities,
        };
        let sections = sections
            .iter()
            .map(|section| (section.build)(&cx, &mut errors))
            .collect();
        let warnings = errors.warnings().cloned().collect();
        let mut catalog = Catalog {
            tags,
            attributes,
            calculations,
            effects,
            abilities,
            sections,
            warnings,
            fingerprint: 0,
        };
        catalog.fingerprint = catalog.compute_fingerprint(content);
        errors.into_result(catalog)
    }
}

impl SourceLoader for CatalogBuilder {
    const EXTENSION: &'static str = "ron";
    const KIND: &'static str = "content";

    fn load_text(&mut self, file: &str, text: &str) {
        self.add_source(file, text);
    }

    fn record(&mut self, error: Diagnostic) {
        self.errors.push(error);
    }
}

/// What the content files say, for the fingerprint: each file's text with
/// its line endings made `\n` (a checkout on another system reads the
/// same), hashed alone, the hashes sorted (the files may come in any
/// order), then hashed together.
fn content_hash(sources: &[SourceFile]) -> u64 {
    let mut files: Vec<u64> = sources
        .iter()
        .map(|source| {
            let mut hash = Fingerprint::default();
            hash.write_name(&source.text.replace("\r\n", "\n"));
            hash.finish()
        })
        .collect();
    files.sort_unstable();
    let mut hash = Fingerprint::default();
    for file in files {
        hash.write_u64(file);
    }
    hash.finish()
}

/// Every tag a rule reacts to the appearance or loss of (the abilities'
/// cancel-on-tags, the effects' ongoing requirements, the life rule), and
/// every tag below one, since rules match parent-aware.
fn reactive_tags(tags: &TagRegistry, effects: &EffectDefs, abilities: &AbilityDefs) -> TagSet {
    let mut reactive = TagSet::new();
    for id in abilities.ids() {
        let def = abilities.def(id);
        reactive.extend_from(&def.cancel_on_tags_added);
        reactive.extend_from(&def.cancel_on_target_tags_added);
    }
    for def in effects.iter() {
        def.ongoing_requirements.collect_tags(&mut reactive);
    }
    effects.life().dead.collect_tags(&mut reactive);
    reactive.iter().flat_map(|tag| tags.subtree(tag)).collect()
}

/// Every top-level key must belong to the core or to a registered section.
fn check_sections(files: &[ParsedFile], sections: &[SectionBuilder], errors: &mut LoadErrors) {
    let known: Vec<&str> = ContentFile::KEYS
        .iter()
        .chain(sections.iter().flat_map(|s| s.keys))
        .copied()
        .collect();
    for file in files {
        for key in &file.keys {
            if known.contains(&key.as_str()) {
                continue;
            }
            let suggestion = nearest(key, known.iter().copied());
            let help = if suggestion.is_none() {
                " (a game module's section needs CatalogBuilder::add_section)"
            } else {
                ""
            };
            errors.push(
                file.source
                    .error_at(key, format!("unknown content section `{key}`{help}"))
                    .suggest(suggestion),
            );
        }
    }
}

/// One core section of every file, each item paired with its file, in load order.
fn section<'a, T>(
    files: &'a [ParsedFile],
    pick: impl Fn(&'a ContentFile) -> &'a Vec<T>,
) -> Vec<(&'a SourceFile, &'a T)> {
    files
        .iter()
        .flat_map(|f| pick(&f.content).iter().map(move |item| (&f.source, item)))
        .collect()
}
