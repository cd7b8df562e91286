//! Congestion control policies over one shared window mechanism.
