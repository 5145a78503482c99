//! What a fighter's wake-up reads first, for the context's prefetch stage
//! (see [`WakeReader`](crate::WakeReader)).

use hecs::{Entity, World};

use super::{Combatant, Kinematic};
use crate::abilities::AbilitySystem;
use crate::gas::{prefetch_component, prefetch_effect_host};

/// The combat layer's [`WakeReader`](crate::WakeReader): a fighter's
/// swing reads its `Combatant` (skills, equipment, target) and its body's
/// position as soon as its ability system, so the prefetch stage asks for
/// all three in one query. Either may be missing (an entity that is no
/// combatant, a game that moves bodies its own way).
///
/// Measured on the arena, alternately with the system-only reader: 3–4 %
/// less time per attack at 100 000 fighters after warm-up, 2–3 % over a
/// million fighters' first 10 s and 1–4 % after their warm-up (README,
/// "Prefetching").
pub fn read_fighter(world: &mut World, entity: Entity) -> Option<&AbilitySystem> {
    let (system, combatant, body) = world
        .query_one_mut::<(&AbilitySystem, Option<&Combatant>, Option<&Kinematic>)>(entity)
        .ok()?;
    if let Some(combatant) = combatant {
        prefetch_component(combatant);
    }
    if let Some(body) = body {
        prefetch_component(body);
    }
    Some(system)
}

/// The combat layer's [`ReachReader`](crate::ReachReader): a fighter's
/// swing reads its target's defences, position and health and applies the
/// hit to it, so the prefetch stage asks for the target's effect host
/// (what the hit and its combat mark read; not its abilities' part of the
/// system, which only the target's own wake-ups read), `Combatant` and
/// body as soon as the fighter's own `Combatant` (which names the target)
/// has arrived; and for the fighter's inventory, held apart from the
/// `Combatant`, where a cast spends its runes.
///
/// Measured on the arena, alternately without it: 3.5 % less time per
/// attack at 100 000 fighters after warm-up (1 077–1 113 → 1 041–1 077
/// ns, two ABBA rounds), 2 % at a million. The inventory, alternately
/// without it: 1.6 % less at 100 000 fighters after warm-up (three ABBA
/// rounds), 1.4 % at a million after warm-up (two) and 0.8 % over their
/// first 10 s (one); the rune spending's share of a million fighters'
/// time fell from 2.4 % to 0.1 % (`perf`).
pub fn reach_target(world: &mut World, entity: Entity) {
    let target = world
        .query_one_mut::<&Combatant>(entity)
        .ok()
        .and_then(|combatant| {
            combatant.inventory.prefetch();
            combatant.targeting.target
        });
    if let Some(system) = target.and_then(|target| read_fighter(world, target)) {
        prefetch_effect_host(system);
    }
}
