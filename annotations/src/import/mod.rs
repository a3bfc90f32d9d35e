pub mod ratings_csv;
