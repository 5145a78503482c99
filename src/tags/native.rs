//! Native tags: the tags code relies on, as typed constants resolved once.
//!
//! A module of code that needs particular tags (the core needs its
//! activation failure reasons, the combat layer its damage types) declares
//! them with [`native_tags!`](crate::native_tags), which makes one
//! [`NativeTag`] constant per tag and a marker type for the set. Resolving
//! the set against a [`TagRegistry`] ([`NativeTags::resolve`]) checks that
//! every tag exists, naming each missing one, and gives a table indexed by
//! the constants: at run time `table[MY_TAG]` is an array read, never a name
//! lookup. The marker type keeps sets apart, so a constant of one set
//! cannot index another set's table.
//!
//! The core's own set is [`Core`]; every registry resolves it when built, so
//! `registry[native::FAIL_COOLDOWN]` needs no separate table.
//!
//! ```
//! use gaskit::{native, TagRegistry};
//!
//! let registry = TagRegistry::core();
//! let cooldown = registry[native::FAIL_COOLDOWN];
//! assert_eq!(registry.name(cooldown), "Activation.Fail.Cooldown");
//! ```
//!
//! A game module declares its own set the same way:
//!
//! ```
//! use gaskit::{native_tags, NativeTags, TagRegistryBuilder};
//!
//! native_tags! {
//!     /// The tags my survival module relies on.
//!     pub struct Survival;
//!     /// `Status.Hungry`.
//!     STATUS_HUNGRY => "Status.Hungry",
//! }
//!
//! let mut builder = TagRegistryBuilder::core();
//! builder.add_source("survival.tags", "Status.Hungry  # eats into health\n");
//! let registry = builder.build().unwrap();
//! let survival = NativeTags::<Survival>::resolve(&registry).unwrap();
//! assert_eq!(registry.name(survival[STATUS_HUNGRY]), "Status.Hungry");
//! ```
//!
//! [`TagRegistry`]: crate::TagRegistry

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::ops::Index;

use super::registry::TagRegistry;
use super::Tag;
use crate::diagnostics::{Diagnostic, LoadErrors};

/// A tag some code relies on, resolved when its set is resolved. `S` is the
/// set's marker type.
pub struct NativeTag<S> {
    index: u16,
    name: &'static str,
    set: PhantomData<fn() -> S>,
}

impl<S> NativeTag<S> {
    /// A constant of a set; [`native_tags!`](crate::native_tags) calls this.
    #[doc(hidden)]
    pub const fn new(index: u16, name: &'static str) -> Self {
        Self {
            index,
            name,
            set: PhantomData,
        }
    }

    /// Position in its set.
    pub const fn index(self) -> usize {
        self.index as usize
    }

    /// The dotted name, e.g. `"Activation.Fail.Cooldown"`.
    pub const fn name(self) -> &'static str {
        self.name
    }
}

// Manual impls: derives would wrongly require the marker to implement them.
impl<S> Copy for NativeTag<S> {}
impl<S> Clone for NativeTag<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> PartialEq for NativeTag<S> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<S> Eq for NativeTag<S> {}
impl<S> Hash for NativeTag<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}
impl<S> fmt::Debug for NativeTag<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NativeTag({})", self.name)
    }
}

/// A set of native tags, declared with [`native_tags!`](crate::native_tags).
pub trait NativeSet: Sized + 'static {
    /// Every tag of the set, in index order.
    const ALL: &'static [NativeTag<Self>];
}

/// A native tag set resolved against one registry: indexed by the set's
/// constants, an array read per lookup.
pub struct NativeTags<S> {
    tags: Box<[Tag]>,
    set: PhantomData<fn() -> S>,
}

impl<S> NativeTags<S> {
    /// A table with no tags, replaced before anyone reads it.
    pub(crate) fn empty() -> Self {
        Self {
            tags: Box::new([]),
            set: PhantomData,
        }
    }
}

impl<S: NativeSet> NativeTags<S> {
    /// Resolves every tag of the set, or reports each missing one by name.
    pub fn resolve(registry: &TagRegistry) -> Result<Self, LoadErrors> {
        let mut errors = LoadErrors::default();
        let table = Self::resolve_into(registry, "gaskit", &mut errors);
        errors.into_result(table)
    }

    /// Resolves the set, pushing an error naming `module` for each missing
    /// tag. Missing tags resolve to the registry's first tag so loading can
    /// carry on and report everything; the errors fail the load.
    pub fn resolve_into(registry: &TagRegistry, module: &str, errors: &mut LoadErrors) -> Self {
        let fallback = registry.by_index(0).unwrap_or(Tag::from_parts(0, 0));
        let tags = S::ALL
            .iter()
            .map(|native| match registry.get(native.name()) {
                Some(tag) => tag,
                None => {
                    errors.push(Diagnostic::error(
                        "tag registry",
                        format!(
                            "tag `{}` is required by {module} but no loaded file declares it \
                             (load {module}'s tag files, or declare the tag yourself)",
                            native.name()
                        ),
                    ));
                    fallback
                }
            })
            .collect();
        Self {
            tags,
            set: PhantomData,
        }
    }
}

impl<S> Index<NativeTag<S>> for NativeTags<S> {
    type Output = Tag;

    #[inline]
    fn index(&self, native: NativeTag<S>) -> &Tag {
        &self.tags[native.index()]
    }
}

impl<S> Clone for NativeTags<S> {
    fn clone(&self) -> Self {
        Self {
            tags: self.tags.clone(),
            set: PhantomData,
        }
    }
}

impl<S> fmt::Debug for NativeTags<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.tags.iter()).finish()
    }
}

/// Declares a set of native tags: a marker type, one [`NativeTag`] constant
/// per tag, and `ALL`, every constant in order. One set per module (the
/// macro defines a private helper and `ALL` in the module it is used in).
///
/// ```
/// gaskit::native_tags! {
///     /// Tags of my module.
///     pub struct Mine;
///     /// `Status.Burning`.
///     STATUS_BURNING => "Status.Burning",
/// }
/// assert_eq!(STATUS_BURNING.name(), "Status.Burning");
/// assert_eq!(ALL.len(), 1);
/// ```
#[macro_export]
macro_rules! native_tags {
    (
        $(#[$set_doc:meta])*
        $vis:vis struct $set:ident;
        $($(#[$doc:meta])* $konst:ident => $name:literal,)*
    ) => {
        $(#[$set_doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        $vis struct $set;

        #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
        #[repr(u16)]
        enum __NativeSlot { $($konst,)* }

        $(
            $(#[$doc])*
            $vis const $konst: $crate::NativeTag<$set> =
                $crate::NativeTag::new(__NativeSlot::$konst as u16, $name);
        )*

        /// Every tag of the set, in index order.
        $vis const ALL: &[$crate::NativeTag<$set>] = &[$($konst,)*];

        impl $crate::NativeSet for $set {
            const ALL: &'static [$crate::NativeTag<$set>] = ALL;
        }
    };
}

pub use core_set::*;

/// The core's own set, in a module of its own (the macro defines `ALL`).
mod core_set {
    crate::native_tags! {
        /// The tags gaskit's core relies on: the activation failure reasons
        /// its own checks report. Every [`TagRegistry`](crate::TagRegistry)
        /// resolves them when built.
        pub struct Core;
        /// `Activation.Fail.Authority`: the event's origin may not activate this.
        FAIL_AUTHORITY => "Activation.Fail.Authority",
        /// `Activation.Fail.AlreadyActive`.
        FAIL_ALREADY_ACTIVE => "Activation.Fail.AlreadyActive",
        /// `Activation.Fail.BlockedByTags`.
        FAIL_BLOCKED_BY_TAGS => "Activation.Fail.BlockedByTags",
        /// `Activation.Fail.MissingTags`.
        FAIL_MISSING_TAGS => "Activation.Fail.MissingTags",
        /// `Activation.Fail.SourceRequirements`.
        FAIL_SOURCE_REQUIREMENTS => "Activation.Fail.SourceRequirements",
        /// `Activation.Fail.TargetRequirements`.
        FAIL_TARGET_REQUIREMENTS => "Activation.Fail.TargetRequirements",
        /// `Activation.Fail.Cooldown`: "Not ready yet."
        FAIL_COOLDOWN => "Activation.Fail.Cooldown",
        /// `Activation.Fail.Cost`.
        FAIL_COST => "Activation.Fail.Cost",
        /// `Activation.Fail.NoBehaviour`: the ability is unknown, not granted,
        /// or its behaviour is not registered.
        FAIL_NO_BEHAVIOUR => "Activation.Fail.NoBehaviour",
        /// `Activation.Fail.InvalidPayload`: the event's payload does not fit.
        FAIL_INVALID_PAYLOAD => "Activation.Fail.InvalidPayload",
    }
}
