//! Building blocks shared by pages: the layout (header, navigation), the theme switch, and
//! small display helpers.

pub mod access;
pub mod health;
pub mod layout;
pub mod search;
pub mod table;
pub mod theme;
