//! Pursuit: the chase steps abilities take (the engagement loop's
//! mid-fight chase, the walk-up before an engagement) through the one chase
//! primitive ([`PawnCombatant`](super::PawnCombatant)), with their trace
//! records and the `State.Chasing` tag that says a chase runs.

use hecs::{Entity, World};

use super::native;
use super::record::{ChasePhase, CombatRecord};
use super::runtime::CombatRuntime;
use crate::gas::Gas;

/// Begins a chase of `target`, or polls the one running: a re-issued move
/// when the target drifted far enough, rate-limited.
pub(crate) fn chase_step(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    chaser: Entity,
    target: Entity,
) {
    let now = gas.now();
    if runtime.pawn.is_chase_active_exclusive(world, chaser) {
        if let Some(to) = runtime.pawn.update_chase(world, chaser, now) {
            record(gas, chaser, target, ChasePhase::Reissue(to));
        }
    } else if let Some(to) = runtime.pawn.begin_chase(world, chaser, target, now) {
        let chasing = runtime.tags()[native::STATE_CHASING];
        gas.add_loose_tag(world, chaser, chasing, false);
        record(gas, chaser, target, ChasePhase::Begin(to));
    }
}

/// Ends `chaser`'s chase if one runs (idempotent); the body keeps its last
/// move. `true` when a chase ended.
pub(crate) fn end_chase(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    chaser: Entity,
    target: Option<Entity>,
) -> bool {
    if !runtime.pawn.end_chase(world, chaser, gas.now()) {
        return false;
    }
    let chasing = runtime.tags()[native::STATE_CHASING];
    let _ = gas.remove_loose_tag(world, chaser, chasing);
    if let Some(target) = target {
        record(gas, chaser, target, ChasePhase::End);
    }
    true
}

fn record(gas: &mut Gas, chaser: Entity, target: Entity, phase: ChasePhase) {
    gas.record_game(CombatRecord::Chase {
        chaser,
        target,
        phase,
    });
}
