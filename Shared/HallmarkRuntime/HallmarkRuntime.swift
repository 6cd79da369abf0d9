// HallmarkRuntime
