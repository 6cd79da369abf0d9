// HallmarkKafka
