//! [`Vec2`]: a position on the ground plane, in centimetres.

use std::ops::{Add, Mul, Sub};

use serde::{Deserialize, Serialize};

/// A point or offset on the ground plane, in centimetres.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Vec2 {
    /// East.
    pub x: f64,
    /// North.
    pub y: f64,
}

impl Vec2 {
    /// The origin.
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    /// A point.
    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }

    /// Squared length (range checks compare squares; no square root).
    pub fn length_squared(self) -> f64 {
        self.x * self.x + self.y * self.y
    }

    /// Length.
    pub fn length(self) -> f64 {
        self.length_squared().sqrt()
    }

    /// Distance to `other`.
    pub fn distance(self, other: Vec2) -> f64 {
        (other - self).length()
    }

    /// True when `other` is within `range` of `self` (inclusive).
    pub fn within(self, other: Vec2, range: f64) -> bool {
        (other - self).length_squared() <= range * range
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    fn add(self, rhs: Vec2) -> Vec2 {
        Vec2::new(self.x + rhs.x, self.y + rhs.y)
    }
}

impl Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, rhs: Vec2) -> Vec2 {
        Vec2::new(self.x - rhs.x, self.y - rhs.y)
    }
}

impl Mul<f64> for Vec2 {
    type Output = Vec2;
    fn mul(self, rhs: f64) -> Vec2 {
        Vec2::new(self.x * rhs, self.y * rhs)
    }
}
