//! Consumables spent by attacks: one ammunition per ranged swing, runes per
//! spell. Checks are all-or-nothing: a failed check consumes nothing.

use hecs::{Entity, World};

use super::combatant::Combatant;
use super::defs::{SpellDef, SpellId};
use super::native;
use super::record::{CombatRecord, COMBAT};
use super::runtime::CombatRuntime;
use crate::gas::Gas;
use crate::tags::Tag;

/// `Ok` when `caster` carries every rune `spell` costs.
pub(crate) fn check_runes(
    runtime: &CombatRuntime,
    world: &World,
    caster: Entity,
    spell: &SpellDef,
) -> Result<(), Tag> {
    let has = world
        .get::<&Combatant>(caster)
        .is_ok_and(|c| c.inventory.has_all(&spell.runes));
    if has {
        Ok(())
    } else {
        Err(runtime.tags()[native::FAIL_NO_RUNES])
    }
}

/// Removes the runes of `spell` from `caster`'s inventory; `false` (and
/// nothing removed) when any is missing.
pub(crate) fn consume_runes(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    caster: Entity,
    spell: SpellId,
) -> bool {
    let Some(def) = runtime.defs().spell(spell) else {
        return false;
    };
    let Ok(combatant) = world.query_one_mut::<&mut Combatant>(caster) else {
        return false;
    };
    if !combatant.inventory.has_all(&def.runes) {
        return false;
    }
    for &(rune, count) in &def.runes {
        combatant.inventory.remove(rune, count);
    }
    if !def.runes.is_empty() {
        gas.record_game_with(COMBAT, || CombatRecord::RunesSpent {
            entity: caster,
            spell,
        });
    }
    true
}

/// Uses one ammunition from `shooter`'s ammo slot; `false` when empty.
pub(crate) fn consume_ammo(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    shooter: Entity,
) -> bool {
    let left = {
        let Ok(combatant) = world.query_one_mut::<&mut Combatant>(shooter) else {
            return false;
        };
        if !combatant.equipment.consume_one(runtime.ammo_slot) {
            return false;
        }
        combatant
            .equipment
            .in_slot(runtime.ammo_slot)
            .map_or(0, |(_, q)| q)
    };
    gas.record_game_with(COMBAT, || CombatRecord::AmmoSpent {
        entity: shooter,
        left,
    });
    true
}
