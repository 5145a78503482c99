//! Death and cold storage: `Combat.Event.Death` triggers the server-only
//! death ability, which marks the entity dead, keeps its most valuable items,
//! moves the rest to cold storage, respawns it with full health and clears
//! `Status.Dead`.

use std::sync::Arc;

use hecs::{Entity, World};

use super::combatant::Combatant;
use super::defs::{CombatDefs, ItemId};
use super::movement::Kinematic;
use super::record::CombatRecord;
use super::runtime::CombatRuntime;
use crate::abilities::{AbilityBehaviour, AbilityCx};
use crate::effects::EffectSpec;
use crate::gas::Gas;
use crate::tags::Tag;

/// `behaviour: Registered("Death")`.
pub struct Death(pub Arc<CombatRuntime>);

impl AbilityBehaviour for Death {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        run_death_flow(&self.0, cx.world, cx.gas, cx.owner);
        cx.end();
    }
}

/// Where a carried unit is: worn in a slot, or in the inventory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Place {
    Worn(Tag),
    Carried,
}

/// The units to keep: the `keep` most valuable single units (value from
/// item data, missing = 0), ties going to worn items first, then in carried
/// order. Returned as `(place, item, quantity kept)`.
fn choose_kept(defs: &CombatDefs, combatant: &Combatant, keep: u32) -> Vec<(Place, ItemId, u32)> {
    let mut units: Vec<(u32, usize, Place, ItemId, u32)> = Vec::new();
    let worn = combatant
        .equipment
        .iter()
        .map(|(slot, item, q)| (Place::Worn(slot), item, q));
    let carried = combatant
        .inventory
        .iter()
        .map(|(item, q)| (Place::Carried, item, q));
    for (order, (place, item, quantity)) in worn.chain(carried).enumerate() {
        let value = defs.item(item).map_or(0, |i| i.value);
        units.push((value, order, place, item, quantity));
    }
    // Most valuable first; stable on order for equal values.
    units.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut left = keep;
    let mut kept = Vec::new();
    for (_, _, place, item, quantity) in units {
        if left == 0 {
            break;
        }
        let take = quantity.min(left);
        left -= take;
        kept.push((place, item, take));
    }
    kept
}

/// Runs the whole death flow on `entity` at once: what the death ability
/// (`Combat.Event.Death`) does, and so what a save in combat sets off (a
/// disconnect counts as death; see [`save_profile`](super::save_profile)).
pub fn run_death_flow(runtime: &CombatRuntime, world: &mut World, gas: &mut Gas, entity: Entity) {
    // Status.Dead first (a death at zero health has it already: Health's
    // `on_zero`), so everything that listens for it reacts now.
    let dead = gas.has_tag(world, entity, runtime.dead);
    if !dead {
        gas.apply_effect_recorded(
            world,
            entity,
            EffectSpec::new(runtime.dead_effect).with_source(entity),
        );
    }
    let settings = &runtime.defs().settings;
    let (kept, stored) = {
        let Ok(combatant) = world.query_one_mut::<&mut Combatant>(entity) else {
            return;
        };
        let kept = choose_kept(runtime.defs(), combatant, settings.death_item_retention);
        // How many of `item` at `place` the death keeps.
        let kept_at = |place: Place, item: ItemId| -> u32 {
            kept.iter()
                .filter(|(p, i, _)| *p == place && *i == item)
                .map(|k| k.2)
                .sum()
        };
        let mut stored: Vec<(ItemId, u32)> = Vec::new();
        let worn: Vec<(Tag, ItemId, u32)> = combatant.equipment.iter().collect();
        for (slot, item, quantity) in worn {
            let keep = kept_at(Place::Worn(slot), item);
            if quantity > keep {
                combatant.equipment.put(slot, item, keep);
                stored.push((item, quantity - keep));
            }
        }
        for (item, quantity) in combatant.inventory.drain() {
            let keep = kept_at(Place::Carried, item).min(quantity);
            combatant.inventory.add(item, keep);
            if quantity > keep {
                stored.push((item, quantity - keep));
            }
        }
        for &(item, quantity) in &stored {
            combatant.cold_storage.add(item, quantity);
        }
        (
            kept.into_iter().map(|(_, i, q)| (i, q)).collect::<Vec<_>>(),
            stored,
        )
    };
    let now = gas.now();
    gas.record_game(CombatRecord::Died {
        entity,
        kept,
        stored,
    });
    let at = settings.respawn_position;
    if let Ok(body) = world.query_one_mut::<&mut Kinematic>(entity) {
        body.from = at;
        body.to = at;
        body.since = now;
    }
    gas.record_game(CombatRecord::Respawned { entity, at });
    gas.apply_effect_recorded(
        world,
        entity,
        EffectSpec::new(runtime.restore_health_effect).with_source(entity),
    );
    // A respawn is a clean slate: out of combat, alive.
    gas.remove_effects_of(world, entity, runtime.in_combat_effect);
    gas.remove_effects_of(world, entity, runtime.dead_effect);
}
