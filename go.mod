module lanaiemu

go 1.26
