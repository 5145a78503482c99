//! Spellbooks: learned spells are derived from book membership.

use super::combatant::SpellbookState;
use super::defs::{CombatDefs, SpellDef};

/// True when `spell` belongs to the entity's current book and that book is
/// still a known book. Nothing is learned one spell at a time.
pub fn has_learned(defs: &CombatDefs, state: &SpellbookState, spell: &SpellDef) -> bool {
    spell.book == state.current && defs.is_known_book(state.current)
}
