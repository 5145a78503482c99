//! [`ContentSection`]: how a game module adds its own sections to the
//! content files, compiled and validated with the core's.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

use crate::abilities::AbilityDefs;
use crate::attributes::AttributeSchema;
use crate::checksum::Fnv64;
use crate::diagnostics::{LoadErrors, SourceFile};
use crate::effects::EffectDefs;
use crate::tags::TagRegistry;

/// A game module's part of the content: the top-level sections of
/// `abilities/*.ron` it reads, compiled once into a value the catalog holds.
///
/// Register it with [`CatalogBuilder::add_section`](crate::CatalogBuilder::add_section);
/// read it back with [`Catalog::section`](crate::Catalog::section). The
/// combat layer's items, spells and settings are one
/// (`gaskit::combat::CombatDefs`); a game's own module plugs in the same way.
///
/// A section sees every content file whole and picks its keys out of it
/// with [`SectionCx::parse`]; the core checks that every top-level key of
/// every file belongs to the core or to a registered section, so a typo is
/// a located error rather than silently ignored content.
///
/// ```
/// use gaskit::{CatalogBuilder, ContentSection, Fingerprint, LoadErrors, SectionCx};
///
/// /// A survival game's hunger rates.
/// #[derive(Debug, Default)]
/// struct Hunger {
///     rates: Vec<(String, f64)>,
/// }
///
/// #[derive(serde::Deserialize, Default)]
/// #[serde(default)]
/// struct HungerFile {
///     hunger: Vec<(String, f64)>,
/// }
///
/// impl ContentSection for Hunger {
///     const MODULE: &'static str = "survival";
///     const KEYS: &'static [&'static str] = &["hunger"];
///
///     fn build(cx: &SectionCx<'_>, errors: &mut LoadErrors) -> Self {
///         let mut rates = Vec::new();
///         for (_file, data) in cx.parse::<HungerFile>(errors) {
///             rates.extend(data.hunger);
///         }
///         Hunger { rates }
///     }
///
///     fn fingerprint(&self, hash: &mut Fingerprint) {
///         for (name, _) in &self.rates {
///             hash.write_name(name);
///         }
///     }
/// }
///
/// let mut builder = CatalogBuilder::new();
/// builder.add_section::<Hunger>();
/// builder.add_source("survival.ron", r#"(hunger: [("Walking", 0.5)])"#);
/// let catalog = builder.build().unwrap();
/// assert_eq!(catalog.section::<Hunger>().unwrap().rates.len(), 1);
/// ```
pub trait ContentSection: Send + Sync + 'static {
    /// The module owning the section, named in messages (`"combat"`).
    const MODULE: &'static str;
    /// The top-level keys of a content file this section reads.
    const KEYS: &'static [&'static str];

    /// Compiles the section from every loaded file, after the core's tags,
    /// attributes, effects and abilities. Push every problem, located in
    /// its file, to `errors`; build from what is valid.
    fn build(cx: &SectionCx<'_>, errors: &mut LoadErrors) -> Self
    where
        Self: Sized;

    /// Feeds everything the section numbers (names in id order, layouts)
    /// into the catalog's fingerprint, so state saved under one catalog is
    /// refused by a catalog whose ids mean other things.
    fn fingerprint(&self, hash: &mut Fingerprint);
}

/// What a [`ContentSection`] compiles against: every content file, and the
/// core's compiled definitions.
pub struct SectionCx<'a> {
    /// Every content file that parsed, in load order.
    pub files: &'a [SourceFile],
    /// The tag registry.
    pub tags: &'a TagRegistry,
    /// The attribute schema.
    pub attributes: &'a AttributeSchema,
    /// The effect definitions.
    pub effects: &'a EffectDefs,
    /// The ability definitions.
    pub abilities: &'a AbilityDefs,
}

impl<'a> SectionCx<'a> {
    /// Every file read as `T`: the module's view of a content file, a
    /// struct of its own keys with `#[serde(default)]` (keys of the core and
    /// of other modules are skipped). A file whose sections do not fit is
    /// reported with its line and column and left out.
    pub fn parse<T: DeserializeOwned>(&self, errors: &mut LoadErrors) -> Vec<(&'a SourceFile, T)> {
        let mut out = Vec::with_capacity(self.files.len());
        for file in self.files {
            match crate::ron_format::from_str::<T>(&file.text, &file.name) {
                Ok(data) => out.push((file, data)),
                Err(error) => errors.push(error),
            }
        }
        out
    }
}

/// The hash a [`Catalog`](crate::Catalog) fingerprint is made of.
#[derive(Clone, Debug, Default)]
pub struct Fingerprint(Fnv64);

impl Fingerprint {
    /// Hashes a name (length-prefixed, so `"ab" + "c"` differs from `"a" + "bc"`).
    pub fn write_name(&mut self, name: &str) {
        self.0.write_name(name);
    }

    /// Hashes a number.
    pub fn write_u64(&mut self, value: u64) {
        std::hash::Hasher::write_u64(&mut self.0, value);
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }
}

/// A registered section, before the build.
#[derive(Clone)]
pub(crate) struct SectionBuilder {
    pub type_id: TypeId,
    pub module: &'static str,
    pub keys: &'static [&'static str],
    pub build: fn(&SectionCx<'_>, &mut LoadErrors) -> BuiltSection,
}

impl SectionBuilder {
    pub(crate) fn of<T: ContentSection>() -> Self {
        SectionBuilder {
            type_id: TypeId::of::<T>(),
            module: T::MODULE,
            keys: T::KEYS,
            build: build_section::<T>,
        }
    }
}

impl fmt::Debug for SectionBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "section of {} ({:?})", self.module, self.keys)
    }
}

fn build_section<T: ContentSection>(cx: &SectionCx<'_>, errors: &mut LoadErrors) -> BuiltSection {
    let section = T::build(cx, errors);
    let mut hash = Fingerprint::default();
    hash.write_name(T::MODULE);
    section.fingerprint(&mut hash);
    BuiltSection {
        type_id: TypeId::of::<T>(),
        module: T::MODULE,
        fingerprint: hash.finish(),
        value: Arc::new(section),
    }
}

/// A compiled section, held by the catalog.
#[derive(Clone)]
pub(crate) struct BuiltSection {
    pub type_id: TypeId,
    pub module: &'static str,
    pub fingerprint: u64,
    pub value: Arc<dyn Any + Send + Sync>,
}

impl fmt::Debug for BuiltSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "section of {}", self.module)
    }
}

/// The top-level keys of a content file, in order, for the unknown-section
/// check. Values are skipped unread.
pub(crate) struct TopLevelKeys(pub Vec<String>);

impl<'de> Deserialize<'de> for TopLevelKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Key(String);
        impl<'de> Deserialize<'de> for Key {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct KeyVisitor;
                impl Visitor<'_> for KeyVisitor {
                    type Value = Key;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a section name")
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                        Ok(Key(v.to_owned()))
                    }
                }
                deserializer.deserialize_identifier(KeyVisitor)
            }
        }
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = TopLevelKeys;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content file: `(section: ..., ...)`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevelKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(Key(key)) = map.next_key()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(TopLevelKeys(keys))
            }
        }
        deserializer.deserialize_struct("ContentFile", &[], KeysVisitor)
    }
}
