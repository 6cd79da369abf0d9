// HallmarkPostgres
