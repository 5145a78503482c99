//! [`Combatant`]: the per-entity combat component.

use hecs::{Entity, World};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::chase::ChaseState;
use super::defs::{DamageType, KindId, SpellId};
use super::loadout::{Equipment, Inventory};
use super::skills::Skills;
use super::stats::SwingStats;
use crate::gas::in_play;
use crate::tags::Tag;
use crate::time::SimTime;

/// Who an entity is fighting (the role of `UCombatTargetingComponent`):
/// the active target and attack channel change together, and the queued
/// weave lives here.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Targeting {
    /// The engaged target.
    pub target: Option<Entity>,
    /// The leaf damage type of the current swing (never a collapsed bucket).
    pub channel: Option<DamageType>,
    /// The one-deep weave queue: a spell to cast at the next resolution.
    pub pending_weave: Option<SpellId>,
    /// Since when line of sight to the target has been lost.
    pub sight_lost_since: Option<SimTime>,
}

impl Targeting {
    /// Aims at `target` with the channel of `stats` (none without); `true`
    /// when either changed.
    pub fn aim(&mut self, target: Option<Entity>, stats: Option<SwingStats>) -> bool {
        let channel = stats.map(|s| s.channel());
        let changed = self.target != target || self.channel != channel;
        self.target = target;
        self.channel = channel;
        changed
    }
}

/// The entities attacking this one (the multi-attacker ceiling).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attackers {
    /// Current attackers, in the order they engaged.
    pub current: SmallVec<[Entity; 3]>,
}

impl Attackers {
    /// Forgets attackers that no longer exist.
    pub fn prune(&mut self, world: &World) {
        self.current.retain(|e| in_play(world, *e));
    }

    /// Would `attacker` be accepted under `max`? Idempotent: one already in
    /// the set is accepted whatever the count. Attackers that no longer
    /// exist do not count against `max`.
    pub fn would_accept(&self, world: &World, attacker: Entity, max: u32) -> bool {
        let present = self.current.iter().filter(|&&e| in_play(world, e)).count();
        self.current.contains(&attacker) || (present as u32) < max
    }
}

/// The spellbook state: the current book, the books unlocked, the autocast spell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpellbookState {
    /// The book spells are cast from.
    pub current: Tag,
    /// Books the entity may switch to.
    pub unlocked: SmallVec<[Tag; 2]>,
    /// The spell auto-attack casts instead of swinging.
    pub autocast: Option<SpellId>,
}

/// Component: everything combat keeps on an entity besides its ability
/// system: kind, skills, equipment, inventory, spellbook, targeting,
/// attackers and chase.
///
/// Laid out as declared: what the defender's half of an attack reads
/// (skills, equipment) in the first 104 bytes, what the attacker's adds
/// (targeting, spellbook, kind) in the next 72, the rest after. At scale
/// a combatant is cold when its attack comes round, and each line read is
/// a miss (cache-simulated: 35.8 -> 34.3 misses per attack against the
/// default order; aligning it to a line as well saved 0.5 more for 40
/// bytes per entity, not taken). Saved in the order it always was (see
/// `saved_combatant.rs`).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct Combatant {
    /// Skill XP and levels.
    pub skills: Skills,
    /// Worn items.
    pub equipment: Equipment,
    /// Who it fights.
    pub targeting: Targeting,
    /// Spellbook state.
    pub spellbook: SpellbookState,
    /// The kind (chase tunables, attacker ceiling).
    pub kind: KindId,
    /// Carried items (runes, food, loot).
    pub inventory: Inventory,
    /// Who fights it.
    pub attackers: Attackers,
    /// The chase in progress.
    pub chase: ChaseState,
    /// Items moved here on death.
    pub cold_storage: Inventory,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ceiling counts only attackers that still exist (one despawned
    /// behind the context's back frees its place at once), and one
    /// already in the set is accepted whatever the count.
    #[test]
    fn the_ceiling_counts_only_attackers_that_still_exist() {
        let mut world = World::new();
        let [first, second, newcomer] = [(); 3].map(|()| world.spawn(((),)));
        let attackers = Attackers {
            current: SmallVec::from_slice(&[first, second]),
        };
        assert!(!attackers.would_accept(&world, newcomer, 2), "full");
        assert!(attackers.would_accept(&world, first, 2), "already in");
        world.despawn(second).unwrap();
        assert!(attackers.would_accept(&world, newcomer, 2), "a place freed");
        assert!(!attackers.would_accept(&world, newcomer, 1));
        // A handle kept for a rollback is no attacker either.
        world.despawn(first).unwrap();
        world.spawn_at(
            first,
            (crate::gas::Reserved {
                since: crate::SimTime::ZERO,
            },),
        );
        assert!(attackers.would_accept(&world, newcomer, 1), "a kept handle");
    }
}
