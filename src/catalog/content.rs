//! [`ContentFile`]: the core's sections of one `abilities/*.ron` file.

use serde::{Deserialize, Serialize};

use crate::abilities::AbilityData;
use crate::attributes::{AttributeData, DerivedProfileData};
use crate::effects::{EffectData, LifeData};

/// The core's view of one content file. Every section is optional, so
/// content can be split across files however a team likes; names are global
/// across files. Sections of game modules (registered with
/// [`CatalogBuilder::add_section`](crate::CatalogBuilder::add_section)) sit
/// beside these in the same file; a key neither the core nor a module reads
/// is an error.
///
/// ```ron
/// (
///     attributes: [(name: "Mana", base: 100, min: 0)],
///     derived: [],
/// )
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContentFile {
    /// Attribute definitions.
    pub attributes: Vec<AttributeData>,
    /// Derived-attribute profiles.
    pub derived: Vec<DerivedProfileData>,
    /// Gameplay effects.
    pub effects: Vec<EffectData>,
    /// Abilities.
    pub abilities: Vec<AbilityData>,
    /// The rule for dead owners (at most one file sets it).
    pub life: Option<LifeData>,
}

impl ContentFile {
    /// The top-level keys the core reads.
    pub const KEYS: &'static [&'static str] =
        &["attributes", "derived", "effects", "abilities", "life"];
}
