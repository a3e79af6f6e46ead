/** A program that uses jrdma as a module. */
module org.example.consumer {
    requires dev.jrdma;
}
