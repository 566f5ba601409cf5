"""CiderVectorizer as a scikit-learn estimator."""

from __future__ import annotations

import pickle
from concurrent.futures import ThreadPoolExecutor

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.base import BaseEstimator, clone
from sklearn.decomposition import TruncatedSVD
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.utils import estimator_checks

import sparsecider
from sparsecider import CiderVectorizer, DocumentFrequencies

REFS = [
    ["a dog runs on the grass", "the brown dog runs", "a dog playing outside"],
    ["a red bus on the street", "a bus parked by the road"],
    ["a cat sleeps on a sofa", "the cat is sleeping", "a sleeping cat", "cat on a couch"],
    ["two people ride bikes", "people riding bicycles down a road"],
]
CANDS = ["a dog runs outside", "a red bus on the road", "a cat on a sofa", "two people on bikes"]

DATA_FREE_CHECKS = [
    "check_no_attributes_set_in_init",
    "check_parameters_default_constructible",
    "check_estimator_repr",
    "check_estimator_cloneable",
    "check_get_params_invariance",
    "check_set_params",
    "check_valid_tag_types",
    "check_estimator_tags_renamed",
    "check_mixin_order",
]


@pytest.mark.parametrize("check", DATA_FREE_CHECKS)
def test_sklearn_estimator_checks(check):
    getattr(estimator_checks, check)("CiderVectorizer", CiderVectorizer())


def test_tags_declare_string_input_and_no_set_output():
    # like sklearn's own text vectorizers: sparse output, no set_output
    assert not hasattr(CiderVectorizer(), "set_output")
    tags = CiderVectorizer().__sklearn_tags__()
    assert tags.input_tags.string and not tags.input_tags.two_d_array and tags.requires_fit


def test_transform_is_stable_hashed_tfidf():
    vec = CiderVectorizer(tokenizer="whitespace", n_features=2**12).fit(REFS)
    X = vec.transform(CANDS)
    assert isinstance(X, sp.csr_matrix) and X.shape == (4, 4 * 2**12) and X.dtype == np.float64
    # row values: raw counts times idf.  "a dog runs outside": "a" occurs in all
    # 4 images (idf 0); "dog", "runs", "outside" only in image 0 (idf ln 4)
    df = vec.df_
    again = CiderVectorizer(tokenizer="whitespace", n_features=2**12, df=df).fit(None)
    assert (again.transform(CANDS) != X).nnz == 0
    unigram_values = sorted(X[0, : 2**12].toarray().ravel()[X[0, : 2**12].toarray().ravel() != 0])
    assert unigram_values == pytest.approx([np.log(4)] * 3, abs=1e-15)
    assert X[0, : 2**12].nnz == 4  # the zero-weight "a" is stored too
    assert vec.transform(["dog dog"])[0, : 2**12].data.tolist() == pytest.approx([2 * np.log(4)])


def test_float32_and_sparse_interface():
    vec = CiderVectorizer(tokenizer="whitespace", dtype=np.float32, n_features=64).fit(REFS)
    assert vec.transform(CANDS).dtype == np.float32
    with sklearn.config_context(sparse_interface="sparray"):
        assert isinstance(vec.transform(CANDS), sp.csr_array)


def test_score_is_exact_and_matches_cider_d():
    vec = CiderVectorizer(tokenizer="whitespace").fit(REFS)
    got = vec.evaluate(CANDS, REFS)
    want = sparsecider.cider_d(CANDS, REFS, tokenizer="whitespace")
    np.testing.assert_allclose(got.scores, want.scores, atol=1e-12)
    plain = CiderVectorizer(tokenizer="whitespace", variant="cider").fit(REFS).evaluate(CANDS, REFS)
    np.testing.assert_allclose(
        plain.scores, sparsecider.cider(CANDS, REFS, tokenizer="whitespace").scores, atol=1e-12
    )


def test_score_follows_scikit_learns_convention_a_float():
    # score(X, y) is what cross_val_score and GridSearchCV call: a float, higher is better
    from sklearn.model_selection import cross_val_score

    vec = CiderVectorizer(tokenizer="whitespace").fit(REFS)
    value = vec.score(CANDS, REFS)
    assert type(value) is float
    assert value == sparsecider.cider_d(CANDS, REFS, tokenizer="whitespace").score
    assert vec.n_features == 2**18  # 4 orders x 2**18 = 2**20 columns, as HashingVectorizer
    folds = cross_val_score(CiderVectorizer(tokenizer="whitespace"), CANDS, REFS, cv=2)
    assert folds.shape == (2,) and np.isfinite(folds).all()


@pytest.mark.parametrize("variant", ["cider-d", "cider"])
def test_similarity_equals_one_reference_scores(variant):
    vec = CiderVectorizer(tokenizer="whitespace", variant=variant).fit(REFS)
    a = [*CANDS, "", "dog dog dog runs runs"]
    b = [r for refs in REFS for r in refs]
    sim = vec.similarity(a, b)
    fn = sparsecider.cider_d if variant == "cider-d" else sparsecider.cider
    for i, ca in enumerate(a):
        want = fn([ca] * len(b), [[r] for r in b], df=vec.df_, tokenizer="whitespace").scores
        np.testing.assert_allclose(sim[i], want, atol=1e-12)


def test_pipeline_feature_union_clone_pickle_joblib(tmp_path):
    captions = [c for refs in REFS for c in refs]
    pipe = Pipeline(
        [
            ("cider", CiderVectorizer(tokenizer="whitespace", n_features=256)),
            ("svd", TruncatedSVD(2, random_state=0)),
        ]
    )
    Z = pipe.fit_transform(captions)
    assert Z.shape == (len(captions), 2)
    union = FeatureUnion(
        [
            ("uni", CiderVectorizer(n=1, n_features=64)),
            ("four", CiderVectorizer(n=4, n_features=64)),
        ]
    )
    assert union.fit_transform(captions).shape == (len(captions), 64 + 4 * 64)
    vec = CiderVectorizer(n=3, sigma=4.0, tokenizer="whitespace").fit(REFS)
    cloned = clone(vec)
    assert cloned.get_params() == vec.get_params() and not hasattr(cloned, "df_")
    restored = pickle.loads(pickle.dumps(vec))
    joblib.dump(vec, tmp_path / "vec.joblib")
    loaded = joblib.load(tmp_path / "vec.joblib")
    for other in (restored, loaded):
        assert other.df_ == vec.df_
        assert (other.transform(CANDS) != vec.transform(CANDS)).nnz == 0


def test_set_params_changes_the_result():
    vec = CiderVectorizer(tokenizer="whitespace").fit(REFS)
    before = vec.score(CANDS, REFS)
    vec.set_params(sigma=1.0)
    assert vec.score(CANDS, REFS) != before


class NearestCaption(BaseEstimator):
    """Predicts, for an image vector, the first reference of the nearest training image."""

    def __init__(self, k: int = 1):
        self.k = k

    def fit(self, X, y):
        self.X_ = np.asarray(X, dtype=float)
        self.y_ = list(y)
        return self

    def predict(self, X):
        d = ((np.asarray(X, dtype=float)[:, None, :] - self.X_[None]) ** 2).sum(-1)
        nearest = np.argsort(d, axis=1)[:, : self.k]
        return [self.y_[row[-1]][0] for row in nearest]


def cider_d_score(y_true, y_pred):
    return sparsecider.cider_d(list(y_pred), list(y_true), tokenizer="whitespace").score


def test_make_scorer_in_grid_search_and_cross_val_score_with_ragged_references():
    rng = np.random.default_rng(0)
    y = [REFS[i % 4] for i in range(24)]  # ragged: 3, 2, 4 or 2 references
    X = np.array([np.eye(4)[i % 4] + rng.normal(0, 0.01, 4) for i in range(24)])
    scorer = make_scorer(cider_d_score)
    search = GridSearchCV(NearestCaption(), {"k": [1, 3]}, scoring=scorer, cv=3).fit(X, y)
    assert search.best_params_ == {"k": 1}
    scores = cross_val_score(NearestCaption(), X, y, scoring=scorer, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0)


def test_bad_parameters_and_input():
    with pytest.raises(ValueError, match=r"variant must be 'cider-d' or 'cider', got 'bleu'"):
        CiderVectorizer(variant="bleu").fit(REFS)
    with pytest.raises(ValueError, match=r"n_features must be an integer in 1..2\*\*40, got 0"):
        CiderVectorizer(n_features=0).fit(REFS)
    with pytest.raises(sklearn.exceptions.NotFittedError):
        CiderVectorizer().transform(CANDS)
    vec = CiderVectorizer().fit(REFS)
    with pytest.raises(TypeError, match=r"X must be a list of caption strings, got str"):
        vec.transform("a dog")
    with pytest.raises(TypeError, match=r"X\[1\] must be a string, got int"):
        vec.transform(["a", 3])
    with pytest.raises(ValueError, match=r"df was fitted for n=2; it cannot score n=4"):
        CiderVectorizer(df=DocumentFrequencies.from_references(REFS, n=2)).fit(None)


def test_shared_between_threads():
    vec = CiderVectorizer(tokenizer="whitespace").fit(REFS)
    want = vec.similarity(CANDS, CANDS)
    with ThreadPoolExecutor(8) as pool:
        for got in pool.map(lambda _: vec.similarity(CANDS, CANDS), range(16)):
            np.testing.assert_array_equal(got, want)


def test_feature_names_follow_the_transform_columns():
    vec = CiderVectorizer(tokenizer="whitespace", n=2, n_features=16).fit([["a b", "b c"]])
    names = vec.get_feature_names_out()
    X = vec.transform(["c"])  # one unigram: one stored column, in the 1-gram block
    assert names.shape == (X.shape[1],) == (32,)
    (col,) = X.indices.tolist()
    assert names[col] == f"1gram_{col}" and names[16] == "2gram_0"
