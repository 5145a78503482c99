//! Bodies in motion: the [`Kinematic`] component, the [`MoveIssuer`] trait
//! game code implements to move a body, and the deterministic
//! [`KinematicMover`] gaskit ships for tests and examples.

use hecs::{Entity, World};
use serde::{Deserialize, Serialize};

use super::vec2::Vec2;
use crate::time::SimTime;

/// Component: a body moving in a straight line toward a destination at a
/// constant speed. Its position is a function of time, so where it is at
/// any instant does not depend on how the game steps its frames.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Kinematic {
    /// Where the current move started.
    pub from: Vec2,
    /// Where it is headed.
    pub to: Vec2,
    /// When the current move started.
    pub since: SimTime,
    /// Speed in cm/s (0: it never moves).
    pub speed: f64,
}

impl Kinematic {
    /// A body standing at `at`, able to move at `speed` cm/s.
    pub fn at(at: Vec2, speed: f64) -> Self {
        Self {
            from: at,
            to: at,
            since: SimTime::ZERO,
            speed,
        }
    }

    /// Where the body is at `now`.
    pub fn position(&self, now: SimTime) -> Vec2 {
        let path = self.to - self.from;
        let length = path.length();
        if length == 0.0 || self.speed <= 0.0 {
            return self.from;
        }
        let travelled = self.speed * now.saturating_since(self.since).as_secs_f64();
        if travelled >= length {
            self.to
        } else {
            self.from + path * (travelled / length)
        }
    }

    /// True while it has not reached its destination at `now`.
    pub fn is_moving(&self, now: SimTime) -> bool {
        self.position(now) != self.to
    }

    /// Starts a move to `to` from wherever the body is at `now`.
    pub fn move_to(&mut self, to: Vec2, now: SimTime) {
        self.from = self.position(now);
        self.to = to;
        self.since = now;
    }

    /// Stops where the body is at `now`.
    pub fn stop(&mut self, now: SimTime) {
        let here = self.position(now);
        self.from = here;
        self.to = here;
        self.since = now;
    }
}

/// How a body is told to move: the controller-side primitive (the role of
/// `IMoveIssuer`). Players and AI implement it differently; the chase
/// logic is the same for both.
pub trait MoveIssuer: Send + Sync {
    /// Moves `entity` toward `to`, starting at `now`.
    fn issue_move_to(&self, world: &mut World, entity: Entity, to: Vec2, now: SimTime);
    /// Stops `entity` at `now`.
    fn stop_move(&self, world: &mut World, entity: Entity, now: SimTime);
    /// Where `entity` is at `now`, if it has a body.
    fn position(&self, world: &World, entity: Entity, now: SimTime) -> Option<Vec2>;
    /// [`position`](Self::position) for a caller that holds the world
    /// exclusively (an ability's poll, every swing): an implementation can
    /// read the body without the dynamic borrow a shared read takes and
    /// gives back. The shared read by default.
    fn position_exclusive(&self, world: &mut World, entity: Entity, now: SimTime) -> Option<Vec2> {
        self.position(world, entity, now)
    }
}

/// The shipped mover: drives [`Kinematic`] components.
#[derive(Copy, Clone, Debug, Default)]
pub struct KinematicMover;

impl MoveIssuer for KinematicMover {
    fn issue_move_to(&self, world: &mut World, entity: Entity, to: Vec2, now: SimTime) {
        if let Ok(body) = world.query_one_mut::<&mut Kinematic>(entity) {
            body.move_to(to, now);
        }
    }

    fn stop_move(&self, world: &mut World, entity: Entity, now: SimTime) {
        if let Ok(body) = world.query_one_mut::<&mut Kinematic>(entity) {
            body.stop(now);
        }
    }

    fn position(&self, world: &World, entity: Entity, now: SimTime) -> Option<Vec2> {
        world
            .get::<&Kinematic>(entity)
            .ok()
            .map(|b| b.position(now))
    }

    fn position_exclusive(&self, world: &mut World, entity: Entity, now: SimTime) -> Option<Vec2> {
        world
            .query_one_mut::<&Kinematic>(entity)
            .ok()
            .map(|b| b.position(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exclusive read is the shared one: along a move, at its end,
    /// for an entity without a body and for one that is gone.
    #[test]
    fn exclusive_and_shared_position_reads_agree() {
        let mover = KinematicMover;
        let mut world = World::new();
        let walker = world.spawn((Kinematic::at(Vec2::new(0.0, 0.0), 100.0),));
        let bodiless = world.spawn(((),));
        let gone = world.spawn((Kinematic::at(Vec2::new(5.0, 5.0), 0.0),));
        world.despawn(gone).unwrap();
        mover.issue_move_to(&mut world, walker, Vec2::new(300.0, 400.0), SimTime::ZERO);
        for millis in [0, 1_250, 4_999, 5_000, 9_000] {
            let now = SimTime::from_micros(millis * 1_000);
            for entity in [walker, bodiless, gone] {
                let shared = mover.position(&world, entity, now);
                assert_eq!(mover.position_exclusive(&mut world, entity, now), shared);
            }
        }
        let halfway = SimTime::from_micros(2_500_000);
        assert_eq!(
            mover.position_exclusive(&mut world, walker, halfway),
            Some(Vec2::new(150.0, 200.0))
        );
    }
}
