// HallmarkCrypto
