//! [`ContentFile`]: the shape of one `abilities/*.ron` file.

use serde::{Deserialize, Serialize};

use crate::abilities::AbilityData;
use crate::attributes::{AttributeData, DerivedProfileData};
use crate::combat::{CombatKindData, CombatSettingsData, ItemData, SpellData, SpellbookData};
use crate::effects::EffectData;

/// One content file. Every section is optional, so content can be split
/// across files however a team likes; names are global across files.
///
/// ```ron
/// (
///     attributes: [(name: "Mana", base: 100, min: 0)],
///     derived: [],
/// )
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContentFile {
    /// Attribute definitions.
    pub attributes: Vec<AttributeData>,
    /// Derived-attribute profiles.
    pub derived: Vec<DerivedProfileData>,
    /// Gameplay effects.
    pub effects: Vec<EffectData>,
    /// Abilities.
    pub abilities: Vec<AbilityData>,
    /// Combat settings (later files override earlier ones field by field).
    pub combat: Option<CombatSettingsData>,
    /// Combatant kinds.
    pub kinds: Vec<CombatKindData>,
    /// Items.
    pub items: Vec<ItemData>,
    /// Spells.
    pub spells: Vec<SpellData>,
    /// Spellbooks.
    pub spellbooks: Vec<SpellbookData>,
}
