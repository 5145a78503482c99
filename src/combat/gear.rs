//! Equipping items (skill requirements, the weapon's default style) and
//! eating food (healing is negative damage).

use std::sync::Arc;

use hecs::{Entity, World};

use super::combatant::Combatant;
use super::defs::{ItemId, Style};
use super::native;
use super::record::CombatRecord;
use super::runtime::CombatRuntime;
use crate::abilities::{AbilityBehaviour, AbilityCx, Activation, GameplayEvent};
use crate::effects::EffectSpec;
use crate::gas::Gas;
use crate::tags::Tag;

/// Equips `item` from the inventory (the whole stack for ammunition, one
/// otherwise), returning what the slot held to the inventory. Checks the
/// item's skill requirements. A weapon with a default style sets it.
///
/// Records [`CombatRecord::Equipped`], or [`CombatRecord::EquipRefused`]
/// with the reason it returns: a tester reading a trace sees the gear
/// change that moved the numbers after it, or why it did not happen.
pub fn equip(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    entity: Entity,
    item: ItemId,
) -> Result<(), Tag> {
    let default_style = match put_on(runtime, world, entity, item) {
        Ok(style) => style,
        Err(reason) => {
            gas.record_game(CombatRecord::EquipRefused {
                entity,
                item,
                reason,
            });
            return Err(reason);
        }
    };
    gas.record_game(CombatRecord::Equipped { entity, item });
    // The style changes through its one channel, the set-style ability.
    if let Some(style) = default_style {
        let tags = runtime.tags();
        let set_style =
            GameplayEvent::new(tags[native::TRIGGER_SET_STYLE]).payload(style.tag(tags));
        gas.handle_event(world, entity, set_style);
    }
    Ok(())
}

/// Moves `item` from `entity`'s inventory to its slot, or refuses with the
/// reason and changes nothing; on success, the weapon's default style.
fn put_on(
    runtime: &CombatRuntime,
    world: &mut World,
    entity: Entity,
    item: ItemId,
) -> Result<Option<Style>, Tag> {
    let tags = runtime.tags();
    let def = runtime
        .defs()
        .item(item)
        .ok_or(tags[native::FAIL_INVALID_PAYLOAD])?;
    let slot = def.slot.ok_or(tags[native::FAIL_INVALID_PAYLOAD])?;
    let combatant = world
        .query_one_mut::<&mut Combatant>(entity)
        .map_err(|_| tags[native::FAIL_INVALID_PAYLOAD])?;
    if def.unmet_requirement(&combatant.skills).is_some() {
        return Err(tags[native::FAIL_LEVEL_TOO_LOW]);
    }
    let have = combatant.inventory.count(item);
    let quantity = if slot == runtime.ammo_slot {
        have
    } else {
        have.min(1)
    };
    if quantity == 0 || !combatant.inventory.remove(item, quantity) {
        return Err(tags[native::FAIL_INVALID_PAYLOAD]);
    }
    if let Some((old, count)) = combatant.equipment.put(slot, item, quantity) {
        combatant.inventory.add(old, count);
    }
    Ok(def.weapon.as_ref().and_then(|w| w.default_style))
}

/// `behaviour: Registered("Eat")`: the event's object is the food item.
pub struct Eat(pub Arc<CombatRuntime>);

impl AbilityBehaviour for Eat {
    fn can_activate(
        &self,
        world: &World,
        _gas: &Gas,
        activation: &Activation<'_>,
    ) -> Result<(), Tag> {
        let runtime = &self.0;
        let tags = runtime.tags();
        let item = activation
            .event
            .object
            .and_then(|raw| runtime.defs().item_from_raw(raw));
        let heals = item
            .and_then(|i| runtime.defs().item(i))
            .and_then(|d| d.heals);
        let carried = item.is_some_and(|i| {
            world
                .get::<&Combatant>(activation.owner)
                .is_ok_and(|c| c.inventory.count(i) > 0)
        });
        if heals.is_some() && carried {
            Ok(())
        } else {
            Err(tags[native::FAIL_NOTHING_TO_EAT])
        }
    }

    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let runtime = &self.0;
        let Some(item) = cx
            .event
            .object
            .and_then(|raw| runtime.defs().item_from_raw(raw))
        else {
            cx.end();
            return;
        };
        let heals = runtime
            .defs()
            .item(item)
            .and_then(|d| d.heals)
            .unwrap_or(0.0);
        // Commit first: a refused commit keeps the food.
        if cx.commit().is_err() {
            cx.end();
            return;
        }
        let eaten = cx
            .world
            .query_one_mut::<&mut Combatant>(cx.owner)
            .is_ok_and(|c| c.inventory.remove(item, 1));
        if eaten {
            cx.gas.record_game(CombatRecord::Ate {
                entity: cx.owner,
                item,
            });
            let key = runtime.tags()[native::SET_BY_CALLER_HEAL];
            let spec = EffectSpec::new(runtime.food_effect)
                .with_source(cx.owner)
                .with_set_by_caller(key, -heals);
            cx.gas.apply_effect_recorded(cx.world, cx.owner, spec);
        }
        cx.end();
    }
}
