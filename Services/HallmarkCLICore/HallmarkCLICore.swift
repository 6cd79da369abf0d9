// HallmarkCLICore
