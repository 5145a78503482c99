//! Definition names as the renderers print them: `"?"` for an id the
//! catalog does not know (a trace read against other content).

use crate::abilities::AbilityId;
use crate::catalog::Catalog;
use crate::combat::{ItemId, SpellId};
use crate::effects::EffectId;

/// The effect's name.
pub(super) fn effect_name(catalog: &Catalog, id: EffectId) -> &str {
    catalog
        .effects()
        .try_def(id)
        .map_or("?", |d| d.name.as_str())
}

/// The ability's name.
pub(super) fn ability_name(catalog: &Catalog, id: AbilityId) -> &str {
    catalog
        .abilities()
        .try_def(id)
        .map_or("?", |d| d.name.as_str())
}

/// The spell's name.
pub(super) fn spell_name(catalog: &Catalog, id: SpellId) -> &str {
    catalog.combat().spell(id).map_or("?", |s| s.name.as_str())
}

/// The item's name.
pub(super) fn item_name(catalog: &Catalog, id: ItemId) -> &str {
    catalog.combat().item(id).map_or("?", |i| i.name.as_str())
}
