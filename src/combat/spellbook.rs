//! Spellbooks: learned spells are derived from book membership; the
//! autocast and book mutators are the one gate every caller goes through.

use std::sync::Arc;

use hecs::{Entity, World};

use super::combatant::{Combatant, SpellbookState};
use super::defs::{CombatDefs, Skill, SpellDef, SpellId};
use super::native;
use super::record::CombatRecord;
use super::runtime::CombatRuntime;
use crate::abilities::{AbilityBehaviour, AbilityCx, Activation};
use crate::gas::Gas;
use crate::tags::Tag;

/// True when `spell` belongs to the entity's current book and that book is
/// still a known book. Nothing is learned one spell at a time.
pub fn has_learned(defs: &CombatDefs, state: &SpellbookState, spell: &SpellDef) -> bool {
    spell.book == state.current && defs.is_known_book(state.current)
}

/// The autocast gate, which a cast's spell passes too: a spell may be set
/// only when it exists, is learned and is within the caster's Magic level.
/// `None` clears it.
pub fn check_autocast(
    runtime: &CombatRuntime,
    combatant: &Combatant,
    spell: Option<SpellId>,
) -> Result<(), Tag> {
    let tags = runtime.tags();
    let defs = runtime.defs();
    let Some(id) = spell else {
        return Ok(());
    };
    let def = defs.spell(id).ok_or(tags[native::FAIL_INVALID_PAYLOAD])?;
    if !has_learned(defs, &combatant.spellbook, def) {
        return Err(tags[native::FAIL_NOT_LEARNED]);
    }
    if combatant.skills.level(Skill::Magic) < def.required_level {
        return Err(tags[native::FAIL_LEVEL_TOO_LOW]);
    }
    Ok(())
}

/// Sets or clears the autocast spell through the gate. Records
/// [`CombatRecord::AutocastChanged`], or [`CombatRecord::AutocastRefused`]
/// with the reason it returns (nothing changed).
pub fn set_autocast(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    entity: Entity,
    spell: Option<SpellId>,
) -> Result<(), Tag> {
    let set = world
        .query_one_mut::<&mut Combatant>(entity)
        .map_err(|_| runtime.tags()[native::FAIL_INVALID_PAYLOAD])
        .and_then(|combatant| {
            check_autocast(runtime, combatant, spell)?;
            combatant.spellbook.autocast = spell;
            Ok(())
        });
    match set {
        Ok(()) => gas.record_game(CombatRecord::AutocastChanged { entity, spell }),
        Err(reason) => gas.record_game(CombatRecord::AutocastRefused {
            entity,
            spell,
            reason,
        }),
    }
    set
}

/// Switches to `book`, which must be known and unlocked. An autocast spell
/// from another book is cleared.
pub fn set_spellbook(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    entity: Entity,
    book: Tag,
) -> Result<(), Tag> {
    let tags = runtime.tags();
    let defs = runtime.defs();
    let cleared = {
        let combatant = world
            .query_one_mut::<&mut Combatant>(entity)
            .map_err(|_| tags[native::FAIL_INVALID_PAYLOAD])?;
        if !defs.is_known_book(book) || !combatant.spellbook.unlocked.contains(&book) {
            return Err(tags[native::FAIL_NOT_LEARNED]);
        }
        combatant.spellbook.current = book;
        let foreign = combatant
            .spellbook
            .autocast
            .and_then(|s| defs.spell(s))
            .is_some_and(|s| s.book != book);
        if foreign {
            combatant.spellbook.autocast = None;
        }
        foreign
    };
    if cleared {
        gas.record_game(CombatRecord::AutocastChanged {
            entity,
            spell: None,
        });
    }
    Ok(())
}

/// Unlocks a known `book`; a no-op when already unlocked.
pub fn unlock_spellbook(
    runtime: &CombatRuntime,
    world: &mut World,
    entity: Entity,
    book: Tag,
) -> Result<(), Tag> {
    let tags = runtime.tags();
    if !runtime.defs().is_known_book(book) {
        return Err(tags[native::FAIL_INVALID_PAYLOAD]);
    }
    let combatant = world
        .query_one_mut::<&mut Combatant>(entity)
        .map_err(|_| tags[native::FAIL_INVALID_PAYLOAD])?;
    if !combatant.spellbook.unlocked.contains(&book) {
        combatant.spellbook.unlocked.push(book);
    }
    Ok(())
}

/// `behaviour: Registered("AutocastSet")`: the event's object is the spell
/// (none clears). The gate lives in [`check_autocast`], shared with every
/// other caller.
pub struct AutocastSet(pub Arc<CombatRuntime>);

impl AbilityBehaviour for AutocastSet {
    fn can_activate(
        &self,
        world: &World,
        _gas: &Gas,
        activation: &Activation<'_>,
    ) -> Result<(), Tag> {
        let runtime = &self.0;
        let tags = runtime.tags();
        let spell = match activation.event.object {
            Some(raw) => Some(
                runtime
                    .defs()
                    .spell_from_raw(raw)
                    .ok_or(tags[native::FAIL_INVALID_PAYLOAD])?,
            ),
            None => None,
        };
        let combatant = world
            .get::<&Combatant>(activation.owner)
            .map_err(|_| tags[native::FAIL_INVALID_PAYLOAD])?;
        check_autocast(runtime, &combatant, spell)
    }

    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let spell = cx
            .event
            .object
            .and_then(|raw| self.0.defs().spell_from_raw(raw));
        let _ = set_autocast(&self.0, cx.world, cx.gas, cx.owner, spell);
        cx.end();
    }
}
