//! [`CatalogBuilder`] and [`Catalog`].

use std::path::Path;

use super::content::ContentFile;
use crate::abilities::AbilityDefs;
use crate::attributes::AttributeSchema;
use crate::combat::{CombatDefs, CombatSources};
use crate::diagnostics::{Diagnostic, LoadErrors, SourceFile};
use crate::effects::EffectDefs;
use crate::fs_util::SourceLoader;
use crate::tags::{TagRegistry, TagRegistryBuilder};

/// The shipped content, embedded so a default catalog needs no files.
// rustfmt would split each pair over four lines; one per line reads better.
#[rustfmt::skip]
pub const DEFAULT_CONTENT_FILES: &[(&str, &str)] = &[
    ("abilities/attributes.ron", include_str!("../../abilities/attributes.ron")),
    ("abilities/effects.ron", include_str!("../../abilities/effects.ron")),
    ("abilities/samples.ron", include_str!("../../abilities/samples.ron")),
    ("abilities/combat.ron", include_str!("../../abilities/combat.ron")),
    ("abilities/items.ron", include_str!("../../abilities/items.ron")),
    ("abilities/spells.ron", include_str!("../../abilities/spells.ron")),
];

/// Every definition a simulation uses, compiled and immutable.
///
/// Build one with [`CatalogBuilder`]. Share it (it is cheap to wrap in an
/// `Arc`); entities refer to its definitions by id.
#[derive(Clone, Debug)]
pub struct Catalog {
    tags: TagRegistry,
    attributes: AttributeSchema,
    effects: EffectDefs,
    abilities: AbilityDefs,
    combat: CombatDefs,
    warnings: Vec<Diagnostic>,
    fingerprint: u64,
}

impl Catalog {
    /// The shipped taxonomy and content.
    pub fn with_defaults() -> Catalog {
        CatalogBuilder::with_defaults()
            .build()
            .expect("the embedded content is valid; tests/catalog.rs loads it")
    }

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

    /// The ability definitions.
    pub fn abilities(&self) -> &AbilityDefs {
        &self.abilities
    }

    /// The combat content: settings, kinds, items, spells, spellbooks.
    pub fn combat(&self) -> &CombatDefs {
        &self.combat
    }

    /// Warnings found while loading (the load succeeded despite them).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// A hash of every name the catalog numbers (tags, attributes, effects,
    /// abilities, kinds, items, spells), in id order. Two catalogs with the
    /// same fingerprint give every id the same meaning, so state saved under
    /// one (a rollback snapshot) may be restored under the other.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    fn compute_fingerprint(&self) -> u64 {
        let mut hash = crate::checksum::Fnv64::new();
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
        self.combat.fingerprint_names(&mut hash);
        std::hash::Hasher::finish(&hash)
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
/// let mut builder = CatalogBuilder::with_defaults();
/// builder.add_source("game.ron", r#"(attributes: [(name: "Mana", base: 100, min: 0)])"#);
/// let catalog = builder.build().unwrap();
/// assert!(catalog.attributes().get("Mana").is_some());
/// ```
#[derive(Clone, Debug, Default)]
pub struct CatalogBuilder {
    tags: TagRegistryBuilder,
    files: Vec<(SourceFile, ContentFile)>,
    errors: LoadErrors,
}

impl CatalogBuilder {
    /// No tags and no content. The native tags must still come from some
    /// tag source.
    pub fn new() -> Self {
        Self::default()
    }

    /// The shipped taxonomy and content.
    pub fn with_defaults() -> Self {
        let mut builder = CatalogBuilder {
            tags: TagRegistryBuilder::with_defaults(),
            ..Self::default()
        };
        for (file, text) in DEFAULT_CONTENT_FILES {
            builder.add_source(file, text);
        }
        builder
    }

    /// The tag registry under construction, to add tag files.
    pub fn tags(&mut self) -> &mut TagRegistryBuilder {
        &mut self.tags
    }

    /// Adds a content file's text; `file` names it in diagnostics.
    pub fn add_source(&mut self, file: &str, text: &str) -> &mut Self {
        match crate::ron_format::from_str::<ContentFile>(text, file) {
            Ok(content) => self.files.push((
                SourceFile {
                    name: file.to_owned(),
                    text: text.to_owned(),
                },
                content,
            )),
            Err(error) => self.errors.push(error),
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

    /// Validates and compiles everything. Fails with every error found;
    /// warnings are kept on the catalog.
    pub fn build(self) -> Result<Catalog, LoadErrors> {
        let CatalogBuilder {
            tags,
            files,
            mut errors,
        } = self;
        let tags = match tags.build() {
            Ok(tags) => tags,
            Err(tag_errors) => {
                errors.extend(tag_errors);
                return Err(errors);
            }
        };
        let attributes = section(&files, |c| &c.attributes);
        let profiles = section(&files, |c| &c.derived);
        let attributes = AttributeSchema::build(&attributes, &profiles, &mut errors);
        let effects = section(&files, |c| &c.effects);
        let effects = EffectDefs::build(&effects, &tags, &attributes, &mut errors);
        let abilities = section(&files, |c| &c.abilities);
        let abilities = AbilityDefs::build(&abilities, &tags, &effects, &mut errors);
        let combat_settings: Vec<_> = files
            .iter()
            .filter_map(|(source, content)| content.combat.as_ref().map(|c| (source, c)))
            .collect();
        let combat = CombatDefs::build(
            CombatSources {
                settings: combat_settings,
                kinds: section(&files, |c| &c.kinds),
                items: section(&files, |c| &c.items),
                spells: section(&files, |c| &c.spells),
                spellbooks: section(&files, |c| &c.spellbooks),
            },
            &tags,
            &mut errors,
        );
        let warnings = errors.warnings().cloned().collect();
        let mut catalog = Catalog {
            tags,
            attributes,
            effects,
            abilities,
            combat,
            warnings,
            fingerprint: 0,
        };
        catalog.fingerprint = catalog.compute_fingerprint();
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

/// One section of every file, each item paired with its file, in load order.
fn section<'a, T>(
    files: &'a [(SourceFile, ContentFile)],
    pick: impl Fn(&'a ContentFile) -> &'a Vec<T>,
) -> Vec<(&'a SourceFile, &'a T)> {
    files
        .iter()
        .flat_map(|(source, content)| pick(content).iter().map(move |item| (source, item)))
        .collect()
}
