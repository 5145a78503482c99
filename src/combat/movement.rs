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
}
