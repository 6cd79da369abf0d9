// HallmarkEnvelope
